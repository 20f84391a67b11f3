// The hub's figures (hub.stats), polled every 2 s while the overview is shown.

import { h, replaceChildren, setText } from "./dom.js";
import { bytes, errorText, rate, span } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import { type CallFigures, callCount, type HubStats } from "./types.js";

const POLL_MS = 2000;

/** One figure: `<div data-stat="name"><dt>label</dt><dd>value</dd></div>`. */
function figure(name: string, label: string, value: string): HTMLElement {
  return h("div", { class: "figure", "data-stat": name }, h("dt", {}, label), h("dd", {}, value));
}

/** The hub's calls: its own figures when given (a full token), else the sum of the clients the token may see. */
function hubCalls(stats: HubStats): CallFigures {
  const given = stats.hub?.calls ?? stats.calls;
  if (given) return given;
  const sum = (pick: (figures: CallFigures) => number): number => stats.clients.reduce((total, client) => total + pick(client), 0);
  return { calls: sum(callCount), errors: sum((client) => client.errors), perSecond: sum((client) => client.perSecond) };
}

/** Open connections: their number, with the count of each kind in its title. */
function connectionsFigure(connections: Record<string, number> | number): HTMLElement {
  if (typeof connections === "number") return figure("connections", "connections", String(connections));
  const kinds = Object.entries(connections);
  const shown = figure("connections", "connections", String(kinds.reduce((total, [, count]) => total + count, 0)));
  shown.title = kinds.map(([kind, count]) => `${kind}: ${count}`).join(", ");
  return shown;
}

/** The figures of a hub.stats answer, in the order they are shown. */
function figures(stats: HubStats): HTMLElement[] {
  const calls = hubCalls(stats);
  const shown = [
    figure("calls-per-second", "calls/s", rate(calls.perSecond)),
    figure("calls", "calls", String(callCount(calls))),
    figure("errors", "errors", String(calls.errors)),
    figure("browser", "browser", stats.browser),
    figure("uptime", "up", span(stats.uptimeMs)),
  ];
  if (stats.hub) {
    const { connections, tabs, agents, sessions, rssBytes } = stats.hub;
    shown.push(
      connectionsFigure(connections),
      figure("tabs", "tabs", String(tabs)),
      figure("agents", "agents", String(agents)),
      figure("sessions", "CDP sessions", String(sessions)),
      figure("rss", "memory", bytes(rssBytes)),
    );
  }
  return shown;
}

/** `#stats`: the hub's calls a second, calls, errors, the browser's state and, for a full token, the hub's own figures. */
export class StatsPanel {
  readonly element: HTMLElement;
  private readonly list: HTMLDListElement;
  private readonly status: HTMLElement;
  private readonly scope = new Scope();
  private loading = false;

  /** onStats is given every answer (the overview shows each client's figures with it). */
  constructor(
    private readonly rpc: Rpc,
    private readonly onStats: (stats: HubStats) => void,
  ) {
    this.list = h("dl", { class: "figures" });
    this.status = h("p", { class: "status" });
    this.element = h("div", { id: "stats", class: "stats", role: "group", "aria-label": "Hub figures" }, this.list, this.status);
    this.scope.every(POLL_MS, () => void this.poll());
  }

  /** The connection (re)opened: poll now. */
  connected(): void {
    void this.poll();
  }

  /** Stops polling. */
  dispose(): void {
    this.scope.dispose();
  }

  private async poll(): Promise<void> {
    if (this.loading || this.scope.isDisposed || !this.rpc.isOpen || document.visibilityState === "hidden") return;
    this.loading = true;
    try {
      const stats = await this.rpc.call<HubStats>("hub.stats", {});
      if (this.scope.isDisposed) return;
      replaceChildren(this.list, ...figures(stats));
      this.element.dataset.browser = stats.browser;
      setText(this.status, "");
      this.onStats(stats);
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.status, `Figures: ${errorText(error)}`);
    } finally {
      this.loading = false;
    }
  }
}
