// The overview's clients: a section per client with its agents and a card per tab, updated in place (the
// thumbnails' img elements stay, so their screencasts go on across refreshes).

import { h, replaceChildren, setText } from "./dom.js";
import { clockTime, rate, span } from "./format.js";
import { type AgentState, callCount, type HubStats, type Tab } from "./types.js";

/** An agent line of a client: the target it registered as (null when only clients.list knows of it). */
export interface AgentLine extends AgentState {
  target: string | null;
  connectedAt: number | null;
  activity: string;
}

/** What one client section shows. */
export interface ClientData {
  clientId: string;
  agents: AgentLine[];
  tabs: Tab[];
}

interface TabCard {
  element: HTMLLIElement;
  title: HTMLElement;
  url: HTMLElement;
  agent: HTMLElement;
  img: HTMLImageElement;
}

interface ClientSection {
  element: HTMLElement;
  stats: HTMLElement;
  agents: HTMLUListElement;
  tabs: HTMLUListElement;
  cards: Map<string, TabCard>;
}

/** The link of a tab's view. */
export function tabHref(target: string): string {
  return `#/tab/${encodeURIComponent(target)}`;
}

/** The clients list `#clients`: `section[data-client]`, `[data-agent]` lines and `li[data-tab]` cards with `img.thumb`. */
export class Board {
  readonly element: HTMLElement;
  private readonly sections = new Map<string, ClientSection>();
  private readonly empty: HTMLElement;

  constructor() {
    this.empty = h("p", { class: "empty" }, "No clients yet: open a tab, or connect an agent.");
    this.element = h("div", { id: "clients", class: "clients" }, this.empty);
  }

  /** Shows these clients, in this order; sections and cards of others go. */
  render(clients: ClientData[]): void {
    const wanted = new Set(clients.map((client) => client.clientId));
    for (const [clientId, section] of this.sections) {
      if (!wanted.has(clientId)) {
        section.element.remove();
        this.sections.delete(clientId);
      }
    }
    clients.forEach((client, index) => {
      const section = this.sections.get(client.clientId) ?? this.addSection(client.clientId);
      place(this.element, section.element, index + 1);
      renderAgents(section, client.agents);
      renderTabs(section, client.tabs);
    });
    this.empty.hidden = clients.length > 0;
  }

  /** The thumbnails shown: target → img.thumb. */
  thumbs(): Map<string, HTMLImageElement> {
    const shown = new Map<string, HTMLImageElement>();
    for (const section of this.sections.values()) for (const [target, card] of section.cards) shown.set(target, card.img);
    return shown;
  }

  /** Shows each client's calls from hub.stats. */
  showStats(clients: HubStats["clients"]): void {
    for (const [clientId, section] of this.sections) {
      const figures = clients.find((client) => client.clientId === clientId);
      setText(section.stats, figures ? `${rate(figures.perSecond)} calls/s · ${callCount(figures)} calls · ${figures.errors} errors` : "");
    }
  }

  private addSection(clientId: string): ClientSection {
    const headingId = `client-${clientId}`;
    const stats = h("span", { class: "client-stats" });
    const agents = h("ul", { class: "agents", "aria-label": `Agents of ${clientId}` });
    const tabs = h("ul", { class: "tabs", "aria-label": `Tabs of ${clientId}` });
    const element = h(
      "section",
      { class: "client", "data-client": clientId, "aria-labelledby": headingId },
      h("header", { class: "client-head" }, h("h2", { id: headingId }, clientId), stats),
      agents,
      tabs,
    );
    const section: ClientSection = { element, stats, agents, tabs, cards: new Map() };
    this.sections.set(clientId, section);
    return section;
  }
}

/** The agents of a client, one line each: state, since when, paused, what it did last. */
function renderAgents(section: ClientSection, agents: AgentLine[]): void {
  const lines = agents.map((agent) => {
    const since = agent.connectedAt ? ` since ${clockTime(agent.connectedAt)} (${span(Date.now() - agent.connectedAt)})` : "";
    return h(
      "li",
      {
        class: "agent",
        "data-agent": agent.target,
        "data-state": agent.state,
        "data-paused": agent.paused === true,
      },
      h("span", { class: "agent-name" }, `Agent ${agent.target ?? ""}`.trim()),
      h("span", { class: "agent-state" }, `${agent.state}${since}`),
      agent.paused === true && h("span", { class: "badge paused" }, "paused"),
      agent.activity && h("span", { class: "agent-activity" }, agent.activity),
    );
  });
  replaceChildren(section.agents, ...lines);
  section.agents.hidden = lines.length === 0;
}

/** The tab cards of a client, in tabs.list's order; cards are kept and updated, so their img.thumb stays. */
function renderTabs(section: ClientSection, tabs: Tab[]): void {
  const wanted = new Set(tabs.map((tab) => tab.target));
  for (const [target, card] of section.cards) {
    if (!wanted.has(target)) {
      card.element.remove();
      section.cards.delete(target);
    }
  }
  tabs.forEach((tab, index) => {
    const card = section.cards.get(tab.target) ?? addCard(section, tab.target);
    place(section.tabs, card.element, index);
    setText(card.title, tab.title || tab.url || tab.target);
    setText(card.url, tab.url);
    card.url.title = tab.url;
    const agent = tab.agent === null ? "" : "agent";
    setText(card.agent, agent);
    card.agent.hidden = !agent;
  });
}

/** Puts a child at a position of its parent, moving it only when it is elsewhere (a move would take the focus from it). */
function place(parent: Element, child: Element, index: number): void {
  const there = parent.children[index] ?? null;
  if (there !== child) parent.insertBefore(child, there);
}

function addCard(section: ClientSection, target: string): TabCard {
  const img = h("img", { class: "thumb", alt: "", "data-frames": 0, width: 320, height: 200, decoding: "async" });
  const title = h("span", { class: "tab-title" });
  const url = h("span", { class: "tab-url" });
  const agent = h("span", { class: "badge agent-badge", hidden: true });
  const element = h(
    "li",
    { class: "tab-card", "data-tab": target },
    h("a", { class: "tab-link", href: tabHref(target) }, img, title),
    url,
    agent,
  );
  const card: TabCard = { element, title, url, agent, img };
  section.cards.set(target, card);
  return card;
}
