import { HubError } from "../errors.js";
import { log } from "../log.js";
import { InflightTable } from "../rpc/inflight.js";
import type { ConnectionState, MethodTraits } from "../rpc/method.js";
import type { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { UnsendableMessageError } from "./cluster-codec.js";
import { answerTooBig } from "./forward-errors.js";
import type { CallMessage, CancelMessage, ClosedMessage } from "./messages.js";
import type { ClusterRegistry } from "./registry.js";

/** A caller's connection on another instance, as this (owning) instance runs its calls. */
interface Proxy {
  state: ConnectionState;
  from: string;
  close: AbortController;
  /** Console subscriptions it holds here (they keep it alive between calls). */
  subscriptions: number;
}

const SEND_TIMEOUT_MS = 2_000;

/**
 * The owner's side of forwarding: runs each forwarded call through this instance's own router, on a connection
 * that carries the caller's scope, with the caller's remaining budget, so every rule holds as for a local caller.
 * The connection's notifications (console, agent status) go back to the caller's instance; a cancel or the
 * caller's disconnect ends its calls and subscriptions here. An answer or notification over
 * CLUSTER_MAX_MESSAGE_BYTES is never published: the answer becomes an error, the notification is dropped.
 */
export class ForwardedCalls {
  #registry: ClusterRegistry;
  #router: Router<HubServices>;
  #afterCall: (traits: MethodTraits | undefined) => Promise<void>;
  #traitsOf: (method: string) => MethodTraits | undefined;
  #proxies = new Map<string, Proxy>();

  constructor(options: {
    registry: ClusterRegistry;
    router: Router<HubServices>;
    traitsOf: (method: string) => MethodTraits | undefined;
    /** Runs after a forwarded call ran here, with its method's traits (an unknown method has none). */
    afterCall: (traits: MethodTraits | undefined) => Promise<void>;
  }) {
    this.#registry = options.registry;
    this.#traitsOf = options.traitsOf;
    this.#router = options.router;
    this.#afterCall = options.afterCall;
  }

  /** Runs a forwarded call and sends the answer back to the caller's instance. */
  async onCall(message: CallMessage): Promise<void> {
    const proxy = this.#proxyOf(message.from, message.conn, message.peer);
    proxy.state.scope = message.scope ? new Set(message.scope) : null;
    const request = { jsonrpc: "2.0", id: message.id, method: message.method, params: message.params };
    const response = await this.#router.handleValue(request, proxy.state);
    if (response === null) return;
    const traits = this.#traitsOf(message.method);
    const subscription = traits?.subscription;
    if (subscription === "opens" || subscription === "closes") this.#count(proxy, subscription, response);
    await this.#afterCall(traits);
    this.#dropIfIdle(proxy);
    this.#answer(message, response).catch((error: unknown) => {
      log.debug("cluster: cannot send an answer back", { to: message.from, error: (error as Error).message });
    });
  }

  // An answer too big to publish is replaced by a small error answer for the same call: the caller hears at once.
  async #answer(message: CallMessage, response: string): Promise<void> {
    const answer = (text: string): Promise<boolean> =>
      this.#registry.send(
        message.from,
        { type: "answer", id: message.id, from: this.#registry.instanceId, response: text },
        SEND_TIMEOUT_MS,
      );
    try {
      await answer(response);
    } catch (error) {
      if (!(error instanceof UnsendableMessageError)) throw error;
      await answer(answerTooBig(message, error));
    }
  }

  /** Cancels a forwarded call whose caller gave up. */
  onCancel(message: CancelMessage): void {
    const proxy = this.#proxies.get(proxyKey(message.from, message.conn));
    proxy?.state.inflight.cancel(message.id, new HubError("CANCELLED", `request ${message.id} was cancelled by the caller`));
  }

  /** Ends what a closed caller connection held here. */
  onClosed(message: ClosedMessage): void {
    const proxy = this.#proxies.get(proxyKey(message.from, message.conn));
    if (proxy) this.#close(proxy, "the caller's connection closed");
  }

  /** The instances whose callers hold something here. */
  callers(): string[] {
    return [...new Set([...this.#proxies.values()].map((proxy) => proxy.from))];
  }

  /** A caller's instance died: everything its connections held here ends. */
  callerGone(instance: string): void {
    for (const proxy of [...this.#proxies.values()]) if (proxy.from === instance) this.#close(proxy, `hub instance ${instance} is gone`);
  }

  /** Ends everything (this instance is stopping). */
  closeAll(): void {
    for (const proxy of [...this.#proxies.values()]) this.#close(proxy, "this hub instance is shutting down");
  }

  #proxyOf(from: string, conn: string, peer: string): Proxy {
    const key = proxyKey(from, conn);
    let proxy = this.#proxies.get(key);
    if (proxy) return proxy;
    const close = new AbortController();
    const state: ConnectionState = {
      id: key,
      scope: null,
      peer: `${peer} via ${from}`,
      who: `a caller on ${from}`,
      kind: "cluster",
      inflight: new InflightTable(),
      closed: close.signal,
      // A notification too big to send is dropped, as for a slow reader: the console stream counts it (console.dropped).
      notify: (method, params) =>
        this.#registry.trySend(from, { type: "notify", conn, method, params: params as Record<string, unknown> }, SEND_TIMEOUT_MS),
    };
    this.#proxies.set(key, (proxy = { state, from, close, subscriptions: 0 }));
    return proxy;
  }

  #count(proxy: Proxy, change: "opens" | "closes", response: string): void {
    if ((JSON.parse(response) as { error?: unknown }).error !== undefined) return;
    proxy.subscriptions = Math.max(0, proxy.subscriptions + (change === "opens" ? 1 : -1));
  }

  // A connection with no call running and no subscription here holds nothing: forget it until its next call, and end
  // its state's `closed`, so that what listens to it (the clients it acted for, event topics) lets go now: its next
  // call makes a new state. (Left open, every call after an idle spell added listeners to a signal that never ended.)
  #dropIfIdle(proxy: Proxy): void {
    if (proxy.state.inflight.size > 0 || proxy.subscriptions > 0) return;
    if (this.#proxies.get(proxy.state.id) !== proxy) return;
    this.#proxies.delete(proxy.state.id);
    proxy.close.abort();
  }

  #close(proxy: Proxy, why: string): void {
    this.#proxies.delete(proxy.state.id);
    proxy.state.inflight.cancelAll(new HubError("CANCELLED", why));
    proxy.close.abort();
  }
}

function proxyKey(from: string, conn: string): string {
  return `${from}/${conn}`;
}
