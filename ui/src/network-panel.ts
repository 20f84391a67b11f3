// The network panel: the tab's newest requests (network.list), refreshed on demand and every 3 s while shown.

import { h, replaceChildren, setText } from "./dom.js";
import { bytes, duration, errorText } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import type { NetworkRequest } from "./types.js";

const REFRESH_MS = 3000;
const LIMIT = 50;

/** The panel: `button#network-refresh` and `table#network` (one `tr[data-request-id]` per request, newest last). */
export class NetworkPanel {
  readonly element: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly caption: HTMLTableCaptionElement;
  private readonly status: HTMLElement;
  private readonly scope = new Scope();
  private loading = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
    const refresh = h("button", { id: "network-refresh", type: "button" }, "Refresh");
    this.caption = h("caption", {}, "Requests");
    this.body = h("tbody", {});
    const head = h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Method", "Status", "Type", "URL", "Duration"].map((name) =>
          h("th", { scope: "col", class: `col-${name.toLowerCase()}` }, name),
        ),
      ),
    );
    const table = h("table", { id: "network", class: "network" }, this.caption, head, this.body);
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.element = h(
      "div",
      { class: "network-panel" },
      h("div", { class: "controls" }, refresh),
      this.status,
      h("div", { class: "table-scroll" }, table),
    );
    this.scope.listen(refresh, "click", () => void this.refresh());
    this.scope.every(REFRESH_MS, () => {
      if (this.visible()) void this.refresh();
    });
  }

  /** The connection (re)opened: load the list. */
  connected(): void {
    void this.refresh();
  }

  /** Stops refreshing. */
  dispose(): void {
    this.scope.dispose();
  }

  /** Whether the panel can be seen: the page is shown and the panel (or its `<details>`) is open. */
  private visible(): boolean {
    if (document.visibilityState === "hidden" || !this.element.isConnected) return false;
    const details = this.element.closest("details");
    return !details || details.open;
  }

  /** Loads the newest requests (a refresh while one runs is skipped). */
  async refresh(): Promise<void> {
    if (this.loading || this.scope.isDisposed || !this.rpc.isOpen) return;
    this.loading = true;
    try {
      const answer = await this.rpc.call<{ requests: NetworkRequest[]; total: number }>("network.list", {
        target: this.target,
        limit: LIMIT,
      });
      if (this.scope.isDisposed) return;
      this.render(answer.requests);
      const shown = answer.requests.length;
      setText(this.caption, shown < answer.total ? `The newest ${shown} of ${answer.total} requests` : `${answer.total} requests`);
      setText(this.status, "");
    } catch (error) {
      if (!this.scope.isDisposed) setText(this.status, `Network: ${errorText(error)}`);
    } finally {
      this.loading = false;
    }
  }

  private render(requests: NetworkRequest[]): void {
    replaceChildren(this.body, ...requests.map((request) => row(request)));
  }
}

/** One request as a table row. */
function row(request: NetworkRequest): HTMLTableRowElement {
  const failed = request.state === "failed" || (request.status ?? 0) >= 400;
  const status = request.status !== undefined ? String(request.status) : request.errorText ? "failed" : request.state;
  const sizeNote = request.encodedBytes !== undefined ? `, ${bytes(request.encodedBytes)}` : "";
  return h(
    "tr",
    { "data-request-id": request.requestId, "data-state": request.state, class: failed ? "failed" : null },
    h("td", { class: "col-method" }, request.method),
    h("td", { class: "col-status", title: request.errorText ?? null }, status),
    h("td", { class: "col-type" }, request.resourceType),
    h("td", { class: "col-url", title: request.url }, request.url),
    h(
      "td",
      { class: "col-duration", title: request.durationMs !== undefined ? `${request.durationMs} ms${sizeNote}` : null },
      duration(request.durationMs),
    ),
  );
}
