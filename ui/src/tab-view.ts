// The tab view (#/tab/<target>): the live view and the timeline, console, network, snapshot and agent panels of one tab.

import { AgentPanel } from "./agent-panel.js";
import { ConsolePanel } from "./console-panel.js";
import { h, setText } from "./dom.js";
import { errorText } from "./format.js";
import { LiveView } from "./live-view.js";
import { NetworkPanel } from "./network-panel.js";
import { Scope } from "./scope.js";
import { SnapshotPanel } from "./snapshot-panel.js";
import { TimelineFeed } from "./timeline-feed.js";
import { clientOf, type Tab, type TabUpdated, tabAgent } from "./types.js";
import { UrlBar } from "./url-bar.js";
import type { AppContext, View } from "./view.js";

const TOPICS = ["agents", "tabs"];

/** A panel in a `<details>` element, open, with its heading in the summary. */
function panel(name: string, content: HTMLElement): HTMLDetailsElement {
  return h("details", { class: "panel", open: true, "data-panel": name.toLowerCase() }, h("summary", {}, h("h2", {}, name)), content);
}

/**
 * The view of one tab: `form#url-bar` (`input#tab-url`), `canvas#live`, `#live-status`, `ol#console`, `table#network`,
 * `pre#snapshot`, `#agent`, `a#back`, and the timeline (`ol#timeline`...). Its title and URL follow tab.updated.
 */
export class TabView implements View {
  readonly element: HTMLElement;
  readonly title: string;
  private readonly scope = new Scope();
  private readonly heading: HTMLElement;
  private readonly urlBar: UrlBar;
  private readonly state: HTMLElement;
  private readonly live: LiveView;
  private readonly console: ConsolePanel;
  private readonly network: NetworkPanel;
  private readonly snapshot: SnapshotPanel;
  private readonly agent: AgentPanel;
  private readonly timeline: TimelineFeed;
  private closed = false;

  constructor(
    private readonly context: AppContext,
    private readonly target: string,
  ) {
    const { rpc, screencasts } = context;
    this.title = `${target} · tabwire`;
    this.heading = h("h1", { id: "tab-title" }, target);
    this.urlBar = new UrlBar(rpc, target);
    this.state = h("p", { id: "tab-state", class: "status", role: "status", "aria-live": "polite" });
    this.live = new LiveView({ rpc, screencasts, target });
    this.console = new ConsolePanel(rpc, target);
    this.network = new NetworkPanel(rpc, target);
    this.snapshot = new SnapshotPanel(rpc, target);
    this.agent = new AgentPanel(rpc, target);
    this.timeline = new TimelineFeed(rpc, target);
    this.element = h(
      "div",
      { class: "tab-view", "data-target": target },
      h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { id: "back", href: "#/" }, "← Overview")),
      h("header", { class: "tab-head" }, this.heading, this.urlBar.element, this.urlBar.statusElement, this.state),
      h(
        "div",
        { class: "tab-layout" },
        this.live.element,
        h(
          "div",
          { class: "panels" },
          this.agent.element,
          panel("Timeline", this.timeline.element),
          panel("Console", this.console.element),
          panel("Network", this.network.element),
          panel("Snapshot", this.snapshot.element),
        ),
      ),
    );
    this.scope.add(rpc.on<{ target: string; reason?: string }>("tab.closed", (event) => this.onTabClosed(event)));
    this.scope.add(
      rpc.on<TabUpdated>("tab.updated", (event) => {
        if (event.target === this.target && !this.closed) this.showPage(event);
      }),
    );
  }

  /** The connection (re)opened: subscribe to the tab's events, console and screencast, and load its details. */
  connected(): void {
    if (this.closed) return;
    this.context.rpc.call("events.subscribe", { topics: TOPICS }).catch((error: unknown) => {
      setText(this.state, `Events: ${errorText(error)}`);
    });
    void this.refreshTab();
    this.live.connected();
    this.console.connected();
    this.network.connected();
    this.snapshot.connected();
    this.timeline.connected();
  }

  /** The connection closed: subscriptions ended with it. */
  disconnected(): void {
    this.live.disconnected();
    this.console.disconnected();
    this.network.disconnected();
    this.timeline.disconnected();
  }

  /** Leaves the view: stops the screencast, unsubscribes the console, stops timers. */
  dispose(): void {
    this.scope.dispose();
    this.urlBar.dispose();
    this.live.dispose();
    this.console.dispose();
    this.network.dispose();
    this.snapshot.dispose();
    this.agent.dispose();
    this.timeline.dispose();
  }

  /** Reads the tab's title, URL and agent from tabs.list (when the view opens; tab.updated and the agent events follow). */
  private async refreshTab(): Promise<void> {
    const { rpc } = this.context;
    if (this.closed || !rpc.isOpen) return;
    try {
      const { tabs } = await rpc.call<{ tabs: Tab[] }>("tabs.list", { clientId: clientOf(this.target) });
      if (this.scope.isDisposed || this.closed) return;
      const tab = tabs.find((candidate) => candidate.target === this.target);
      if (!tab) {
        setText(this.state, "This tab is not in tabs.list: it may have closed.");
        return;
      }
      this.showPage(tab);
      setText(this.state, "");
      const agent = tabAgent(tab);
      if (agent && agent.paused === null && this.agent.hasAgent) agent.paused = this.agent.paused;
      this.agent.show(agent);
      if (agent) this.agent.showTask(tab.agentTask);
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.state, `Tab: ${errorText(error)}`);
    }
  }

  private showPage(page: { url: string; title: string }): void {
    setText(this.heading, page.title || page.url || this.target);
    this.urlBar.show(page.url);
    document.title = `${page.title || page.url} · tabwire`;
  }

  private onTabClosed(event: { target: string; reason?: string }): void {
    if (event.target !== this.target || this.closed) return;
    this.closed = true;
    setText(this.state, `This tab ${event.reason === "crashed" ? "crashed" : "closed"}.`);
    this.element.dataset.closed = event.reason ?? "closed";
    this.live.tabClosed();
    this.urlBar.disable();
    this.agent.show(null);
    this.timeline.tabClosed();
  }
}
