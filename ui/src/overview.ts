// The overview (#/): the hub's figures, and every client with its agents and its tabs' live thumbnails.

import { h, setText } from "./dom.js";
import { activityLine, errorText } from "./format.js";
import { type AgentLine, Board, type ClientData } from "./overview-board.js";
import { clientClosed, clientOpened, ListNews, type Lists, tabClosed, tabOpened, tabUpdated } from "./overview-lists.js";
import { Scope, debounce } from "./scope.js";
import { StatsPanel } from "./stats.js";
import { Thumbnails } from "./thumbnails.js";
import { type AgentActivity, type AgentEvent, type ClientInfo, type Tab, type TabOpened, type TabUpdated, tabAgent } from "./types.js";
import type { AppContext, View } from "./view.js";

const TOPICS = ["agents", "tabs", "clients"];
const EVENT_REFRESH_MS = 100;
/** How often the agents' "since" spans are redrawn (from what is known: nothing is read from the hub). */
const SPANS_MS = 5000;
/** The notifications after which the lists are read again (what they said shows at once; the read brings the rest). */
const REFRESH_ON = ["tab.opened", "tab.closed", "client.opened", "client.closed", "agent.connected", "agent.ready", "agent.disconnected"];

/** What events said of agents, kept between refreshes: agents announced, paused or not, what they did last. */
interface AgentNews {
  state?: string;
  clientId: string;
  paused?: boolean;
  activity?: string;
}

/** Groups tabs.list's tabs and clients.list's agents by client, sorted by client id. */
function group(clients: ClientInfo[], tabs: Tab[], news: Map<string, AgentNews>): ClientData[] {
  const byClient = new Map<string, ClientData>();
  const entry = (clientId: string): ClientData => {
    let data = byClient.get(clientId);
    if (!data) byClient.set(clientId, (data = { clientId, agents: [], tabs: [] }));
    return data;
  };
  for (const client of clients) entry(client.clientId);
  for (const tab of tabs) entry(tab.clientId).tabs.push(tab);
  for (const data of byClient.values()) {
    const info = clients.find((client) => client.clientId === data.clientId);
    data.agents = agentLines({ clientId: data.clientId, tabs: data.tabs, connectedAt: info?.agent?.connectedAt ?? null, news });
    if (data.agents.length === 0 && info?.agent) {
      const { state, connectedAt } = info.agent;
      data.agents.push({ target: null, state, connectedAt, paused: info.agent.paused ?? null, activity: "" });
    }
  }
  return [...byClient.values()].sort((a, b) => a.clientId.localeCompare(b.clientId));
}

/** A client's agents: those of its tabs (tabs.list), and those only events announced so far. */
function agentLines(options: { clientId: string; tabs: Tab[]; connectedAt: number | null; news: Map<string, AgentNews> }): AgentLine[] {
  const { clientId, tabs, connectedAt, news } = options;
  const lines: AgentLine[] = [];
  for (const tab of tabs) {
    const agent = tabAgent(tab);
    if (!agent) continue;
    const said = news.get(tab.target);
    const paused = agent.paused ?? said?.paused ?? null;
    const activity = said?.activity ?? (tab.agentTask ? `task: ${tab.agentTask.input}` : "");
    lines.push({ target: tab.target, state: agent.state, paused, connectedAt, activity });
  }
  for (const [target, said] of news) {
    if (said.clientId !== clientId || !said.state || lines.some((line) => line.target === target)) continue;
    lines.push({ target, state: said.state, paused: said.paused ?? null, connectedAt, activity: said.activity ?? "" });
  }
  return lines;
}

/** The overview view: `#stats`, `#clients`, and `a#open-timeline-file` (the view of an exported timeline). */
export class Overview implements View {
  readonly element: HTMLElement;
  readonly title = "tabwire";
  private readonly scope = new Scope();
  private readonly board = new Board();
  private readonly stats: StatsPanel;
  private readonly thumbnails: Thumbnails;
  private readonly status: HTMLElement;
  private readonly news = new Map<string, AgentNews>();
  private readonly refreshSoon = debounce(() => void this.load(), EVENT_REFRESH_MS);
  private loads = 0;
  /** The lists last read with the tab and client events since, shown again when events change what is known. */
  private readonly known = new ListNews();

  constructor(private readonly context: AppContext) {
    const { rpc, screencasts } = context;
    this.stats = new StatsPanel(rpc, (stats) => this.board.showStats(stats.clients));
    this.thumbnails = new Thumbnails(screencasts);
    this.status = h("p", { id: "overview-status", class: "status", role: "status", "aria-live": "polite" });
    this.element = h(
      "div",
      { class: "overview" },
      h(
        "header",
        { class: "overview-head" },
        h("h1", {}, "Overview"),
        this.stats.element,
        h("a", { id: "open-timeline-file", href: "#/timeline-file" }, "Open a timeline file"),
      ),
      this.status,
      this.board.element,
    );
    for (const method of REFRESH_ON) this.scope.add(rpc.on(method, () => this.refreshSoon()));
    this.scope.add(rpc.on<TabOpened>("tab.opened", (event) => this.change(tabOpened(event))));
    this.scope.add(rpc.on<TabUpdated>("tab.updated", (event) => this.change(tabUpdated(event))));
    this.scope.add(rpc.on<{ target: string }>("tab.closed", ({ target }) => this.change(tabClosed(target))));
    this.scope.add(rpc.on<{ clientId: string }>("client.opened", ({ clientId }) => this.change(clientOpened(clientId))));
    this.scope.add(rpc.on<{ clientId: string }>("client.closed", ({ clientId }) => this.change(clientClosed(clientId))));
    this.scope.add(rpc.on<AgentEvent>("agent.connected", (event) => this.agentNews(event, { state: "connected", paused: false })));
    this.scope.add(rpc.on<AgentEvent>("agent.ready", (event) => this.agentNews(event, { state: "ready" })));
    this.scope.add(rpc.on<AgentEvent>("agent.disconnected", ({ target }) => this.news.delete(target)));
    this.scope.add(rpc.on<AgentActivity>("agent.activity", (activity) => this.onActivity(activity)));
    this.scope.every(SPANS_MS, () => this.render());
    this.scope.add(() => this.refreshSoon.cancel());
  }

  /** The connection (re)opened: subscribe to events, read the lists, restart the thumbnails and the figures. */
  connected(): void {
    this.context.rpc.call("events.subscribe", { topics: TOPICS }).catch((error: unknown) => {
      setText(this.status, `Events: ${errorText(error)}`);
    });
    void this.load();
    this.thumbnails.connected();
    this.stats.connected();
  }

  /** The connection closed: what is shown stays until it is back. */
  disconnected(): void {
    setText(this.status, "Disconnected: what is shown may be out of date.");
  }

  /** Leaves the view: stops the thumbnails' screencasts and the timers. */
  dispose(): void {
    this.scope.dispose();
    this.stats.dispose();
    this.thumbnails.dispose();
  }

  /** Reads clients.list and tabs.list and shows them (an answer older than one shown already is dropped). */
  private async load(): Promise<void> {
    const { rpc } = this.context;
    if (this.scope.isDisposed || !rpc.isOpen) return;
    const load = ++this.loads;
    const mark = this.known.mark();
    try {
      const [{ clients }, { tabs }] = await Promise.all([
        rpc.call<{ clients: ClientInfo[] }>("clients.list", {}),
        rpc.call<{ tabs: Tab[] }>("tabs.list", {}),
      ]);
      if (this.scope.isDisposed || load !== this.loads) return;
      this.known.read({ clients, tabs }, mark);
      this.render();
      setText(this.status, "");
    } catch (error) {
      if (!this.scope.isDisposed && load === this.loads) setText(this.status, `Could not read the clients: ${errorText(error)}`);
    }
  }

  private render(): void {
    const lists = this.known.lists;
    if (!lists) return;
    this.board.render(group(lists.clients, lists.tabs, this.news));
    this.thumbnails.sync(this.board.thumbs());
  }

  /** A tab or client event: shown at once (a closed tab's card goes with its screencast), before any read. */
  private change(change: (lists: Lists) => Lists): void {
    this.known.apply(change);
    this.render();
  }

  private agentNews(event: AgentEvent, change: Partial<AgentNews>): void {
    const said = this.news.get(event.target) ?? { clientId: event.clientId };
    this.news.set(event.target, { ...said, ...change });
  }

  private onActivity(activity: AgentActivity): void {
    const change: Partial<AgentNews> = { activity: activityLine(activity) };
    if (activity.kind === "paused" || activity.kind === "resumed") change.paused = activity.kind === "paused";
    this.agentNews(activity, change);
    this.render();
    if (change.paused !== undefined) this.refreshSoon();
  }
}
