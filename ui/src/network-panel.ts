// The network panel: the tab's newest requests, read once (network.list) and then kept current as they are sent and
// answered (network.subscribe); each URL whole, wrapped where it must.

import { h, setText } from "./dom.js";
import { bytes, duration, errorText, isDisconnect } from "./format.js";
import type { Rpc } from "./rpc.js";
import { Scope } from "./scope.js";
import type { NetworkRequest, NetworkRequests } from "./types.js";

const LIMIT = 50;

/** The panel: `table#network`, one `tr[data-request-id]` per request, newest last, updated in place. */
export class NetworkPanel {
  readonly element: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly caption: HTMLTableCaptionElement;
  private readonly status: HTMLElement;
  private readonly scope = new Scope();
  /** The requests shown, by id. */
  private readonly requests = new Map<string, NetworkRequest>();
  private readonly rows = new Map<string, HTMLTableRowElement>();
  private subscriptionId: string | null = null;
  private attempt = 0;

  constructor(
    private readonly rpc: Rpc,
    private readonly target: string,
  ) {
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
    this.element = h("div", { class: "network-panel" }, this.status, h("div", { class: "table-scroll" }, table));
    this.scope.add(rpc.on<NetworkRequests>("network.requests", (notice) => this.receive(notice)));
  }

  /** The connection (re)opened: subscribe, then read what the tab sent before. */
  connected(): void {
    const attempt = ++this.attempt;
    this.subscriptionId = null;
    this.rpc
      .call<{ subscriptionId: string }>("network.subscribe", { target: this.target })
      .then(({ subscriptionId }) => {
        if (this.scope.isDisposed || attempt !== this.attempt) return this.unsubscribe(subscriptionId);
        this.subscriptionId = subscriptionId;
        return this.load();
      })
      .catch((error: unknown) => {
        if (attempt === this.attempt && !this.scope.isDisposed) setText(this.status, `Network: ${errorText(error)}`);
      });
  }

  /** The connection closed: the subscription ended with it. */
  disconnected(): void {
    this.attempt += 1;
    this.subscriptionId = null;
  }

  /** Unsubscribes and stops listening. */
  dispose(): void {
    if (this.subscriptionId) this.unsubscribe(this.subscriptionId);
    this.subscriptionId = null;
    this.scope.dispose();
  }

  /** Reads the newest requests the tab sent (after a subscription began, or when some were missed). */
  private async load(): Promise<void> {
    const answer = await this.rpc.call<{ requests: NetworkRequest[]; total: number }>("network.list", {
      target: this.target,
      limit: LIMIT,
    });
    if (this.scope.isDisposed) return;
    this.merge(answer.requests);
    setText(this.status, "");
  }

  private receive(notice: NetworkRequests): void {
    if (notice.subscriptionId !== this.subscriptionId) return;
    this.merge(notice.requests);
    if (notice.missed) void this.load().catch(() => {});
  }

  /** Takes requests as they stand now; an answer that left the hub earlier never takes back a request's end. */
  private merge(requests: NetworkRequest[]): void {
    for (const request of requests) {
      const shown = this.requests.get(request.requestId);
      if (shown && shown.state !== "pending" && request.state === "pending") continue;
      this.requests.set(request.requestId, request);
    }
    const newest = [...this.requests.values()].sort((a, b) => a.startedAt - b.startedAt).slice(-LIMIT);
    const kept = new Set(newest.map((request) => request.requestId));
    for (const [requestId, row] of this.rows) {
      if (kept.has(requestId)) continue;
      row.remove();
      this.rows.delete(requestId);
      this.requests.delete(requestId);
    }
    newest.forEach((request, index) => this.place(request, index));
    setText(this.caption, newest.length < LIMIT ? `${newest.length} requests` : `The newest ${LIMIT} requests`);
  }

  /** Shows a request at its place, its row made or updated (a row that stays keeps a reader's selection). */
  private place(request: NetworkRequest, index: number): void {
    const fresh = row(request);
    let shown = this.rows.get(request.requestId);
    if (!shown) this.rows.set(request.requestId, (shown = fresh));
    else if (shown.outerHTML !== fresh.outerHTML) {
      shown.replaceWith(fresh);
      this.rows.set(request.requestId, (shown = fresh));
    }
    const there = this.body.children[index] ?? null;
    if (there !== shown) this.body.insertBefore(shown, there);
  }

  private unsubscribe(subscriptionId: string): void {
    if (!this.rpc.isOpen) return;
    this.rpc.call("network.unsubscribe", { subscriptionId }).catch((error: unknown) => {
      if (!isDisconnect(error)) console.warn(`network.unsubscribe: ${errorText(error)}`);
    });
  }
}

/** One request as a table row: its whole URL, wrapped where it must. */
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
