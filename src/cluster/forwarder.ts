import type { Budget } from "../budget.js";
import { currentTraceparent, isTracing, traceChild } from "../tracing.js";
import { relayNotification, type ConnectionState, type MethodDefinition } from "../rpc/method.js";
import { UnsendableMessageError } from "./cluster-codec.js";
import { paramsTooBig, parseAnswer, unavailable, type TargetKind } from "./forward-errors.js";
import { newCallId, type AnswerMessage, type CallMessage, type NotifyMessage } from "./messages.js";
import type { ClusterRegistry } from "./registry.js";

export type { TargetKind } from "./forward-errors.js";

/** A call of this instance's caller to run on another instance: the method, its params, and the caller's connection and budget. */
export interface ForwardedCall {
  method: Pick<MethodDefinition<unknown>, "name" | "traits">;
  params: Record<string, unknown>;
  connection: ConnectionState;
  budget: Budget;
}

/** Where a forwarded call goes: the owner of its target of that kind, or a given instance. */
export interface ForwardOptions {
  kind: TargetKind;
  /** The target whose owner runs the call, when it is not `params.target` (a client's id, for kind `client`). */
  target?: string;
  /** The instance to send it to (a subscription's), found by no lookup. */
  owner?: string;
}

/** One forwarded call of this instance waiting for its answer. */
interface Pending {
  /** The instance the call went to; null until it was sent. */
  owner: string | null;
  /** The caller's connection id. */
  conn: string;
  kind: TargetKind;
  target: string;
  resolve(response: string): void;
  reject(error: Error): void;
  dispose(): void;
}

/** A connection of this instance with calls or console subscriptions on other instances. */
interface Caller {
  connection: ConnectionState;
  pending: number;
  /** subscriptionId -> where it lives. */
  subscriptions: Map<string, { owner: string; target: string }>;
  /** console.message notifications lost per subscription because the connection reads too slowly. */
  dropped: Map<string, number>;
  owners: Set<string>;
  /** It subscribed on another instance: kept until it closes, so that instance hears of the close. */
  subscribed: boolean;
  onClose: () => void;
}

// A forwarded call that ran out of time waits this long for the owner's own TIMEOUT (it says whether the page was terminated).
const LATE_ANSWER_MS = 150;
// Sending a message is one Redis round trip; past this, Redis is in trouble and the caller is told so.
const SEND_TIMEOUT_MS = 2_000;

/**
 * The caller's side of forwarding: sends a call to the instance that owns its target over Redis with a random
 * id and the caller's remaining budget, waits for the answer within that budget, cancels it on the owner when the
 * caller cancels or disconnects, and hands the owner's notifications to the caller's connection.
 */
export class Forwarder {
  #registry: ClusterRegistry;
  #me: string;
  #pending = new Map<string, Pending>();
  #callers = new Map<string, Caller>();

  constructor(registry: ClusterRegistry) {
    this.#registry = registry;
    this.#me = registry.instanceId;
  }

  /**
   * Runs a call on the instance that owns `params.target` (or `target`: a client, for a call on its browser context;
   * or on `owner`, for a subscription's unsubscribe) and returns its result; null when no other instance owns the
   * target, so the caller runs it here.
   */
  forward(call: ForwardedCall, options: ForwardOptions): Promise<object | null> {
    // Traced, the forward is a child span of the call, and the instance that runs it makes its span a child of this one.
    if (isTracing())
      return traceChild(`forward ${call.method.name}`, { "rpc.method": call.method.name }, () => this.#forward(call, options));
    return this.#forward(call, options);
  }

  async #forward(call: ForwardedCall, options: ForwardOptions): Promise<object | null> {
    const { method, params, connection, budget } = call;
    const traceparent = currentTraceparent();
    const target = options.target ?? (typeof params.target === "string" ? params.target : "");
    const id = newCallId();
    const message: CallMessage = {
      type: "call",
      id,
      from: this.#me,
      conn: connection.id,
      scope: connection.scope ? [...connection.scope] : null,
      peer: connection.peer,
      method: method.name,
      params: forwardedParams(params, budget, traceparent),
    };
    const caller = this.#enter(connection);
    try {
      if (method.traits.subscription === "closes") this.#forgetSubscription(caller, params.subscriptionId);
      const answer = this.#awaitAnswer(id, { conn: connection.id, kind: options.kind, target }, budget);
      answer.catch(() => {});
      let owner: string | null;
      try {
        owner = await this.#send(message, { owner: options.owner, kind: options.kind, target }, budget);
      } finally {
        // Not sent (an error, or no other owner): nothing will answer.
        if (this.#pending.get(id)?.owner === null) this.#settle(id, () => {});
      }
      if (owner === null) return null;
      caller.owners.add(owner);
      if (budget.isOver && !budget.isTimedOut) this.#cancelOn(owner, id, connection.id);
      const result = parseAnswer(await answer, budget);
      if (method.traits.subscription === "opens") this.#noteSubscription(caller, result, { owner, target });
      return result;
    } finally {
      caller.pending--;
      this.#leaveIfIdle(caller);
    }
  }

  /** Whether a console subscription of this connection lives on another instance. */
  hasSubscription(connection: ConnectionState, subscriptionId: string): string | null {
    return this.#callers.get(connection.id)?.subscriptions.get(subscriptionId)?.owner ?? null;
  }

  /** Whether this connection has a console subscription on that target on another instance. */
  watchesTarget(connection: ConnectionState, target: string): boolean {
    for (const subscription of this.#callers.get(connection.id)?.subscriptions.values() ?? [])
      if (subscription.target === target) return true;
    return false;
  }

  /** Forgets the console subscriptions on a tab that closed (the owner ended them). */
  forgetTarget(target: string): void {
    for (const caller of [...this.#callers.values()]) {
      for (const [id, subscription] of caller.subscriptions) if (subscription.target === target) caller.subscriptions.delete(id);
      this.#leaveIfIdle(caller);
    }
  }

  /** Takes an owner's answer, from the instance the call went to (or before the send told which one that is). */
  onAnswer(message: AnswerMessage): void {
    const pending = this.#pending.get(message.id);
    if (pending && (pending.owner === null || pending.owner === message.from))
      this.#settle(message.id, () => pending.resolve(message.response));
  }

  /** Hands an owner's notification to the connection it is for; console messages a slow reader loses are counted. */
  onNotify(message: NotifyMessage): void {
    const caller = this.#callers.get(message.conn);
    if (!caller) return;
    const subscriptionId = typeof message.params.subscriptionId === "string" ? message.params.subscriptionId : null;
    if (message.method !== "console.message" || subscriptionId === null)
      return void relayNotification(caller.connection, message.method, message.params);
    const lost = caller.dropped.get(subscriptionId) ?? 0;
    if (lost > 0) {
      if (!caller.connection.notify("console.dropped", { subscriptionId, target: String(message.params.target), count: lost }))
        return void caller.dropped.set(subscriptionId, lost + 1);
      caller.dropped.delete(subscriptionId);
    }
    if (!relayNotification(caller.connection, message.method, message.params)) caller.dropped.set(subscriptionId, 1);
  }

  /** The instances this one waits on or holds subscriptions on. */
  owners(): string[] {
    const owners = new Set<string>();
    for (const pending of this.#pending.values()) if (pending.owner) owners.add(pending.owner);
    for (const caller of this.#callers.values()) for (const owner of caller.owners) owners.add(owner);
    return [...owners];
  }

  /** An owner stopped listening (it died): its calls fail now, and its tabs' subscribers get tab.closed (detached). */
  ownerGone(owner: string): void {
    this.#failWhere((pending) => pending.owner === owner, `its hub instance ${owner} is gone`);
    for (const caller of [...this.#callers.values()]) {
      caller.owners.delete(owner);
      const lost = new Set<string>();
      for (const [id, subscription] of caller.subscriptions) {
        if (subscription.owner !== owner) continue;
        caller.subscriptions.delete(id);
        lost.add(subscription.target);
      }
      for (const target of lost) caller.connection.notify("tab.closed", { target, reason: "detached" });
      this.#leaveIfIdle(caller);
    }
  }

  /** The link to Redis dropped: no answer sent meanwhile can arrive, so every sent call fails now. */
  linkDown(): void {
    this.#failWhere((pending) => pending.owner !== null, "the connection to Redis dropped");
  }

  /** Fails every call (this instance is stopping). */
  failAll(): void {
    this.#failWhere(() => true, "this hub instance is shutting down");
  }

  async #send(
    message: CallMessage,
    where: { owner: string | undefined; kind: TargetKind; target: string },
    budget: Budget,
  ): Promise<string | null> {
    const { owner, kind, target } = where;
    const timeoutMs = Math.min(SEND_TIMEOUT_MS, Math.max(1, budget.remainingMs()));
    if (budget.isOver) throw budget.reason as Error;
    // Not raced with the budget: once sent, the call must be known to be cancelled on its owner.
    let sent: { owner: string | null; receivers: number };
    try {
      sent =
        owner === undefined
          ? await this.#registry.sendToOwner({ kind, target }, message, timeoutMs)
          : { owner, receivers: (await this.#registry.send(owner, message, timeoutMs)) ? 1 : 0 };
    } catch (error) {
      if (error instanceof UnsendableMessageError) throw paramsTooBig(message, target || "the subscription's tab", error);
      if (budget.isOver) throw budget.reason as Error;
      throw unavailable(kind, target, `the cluster registry (Redis) did not answer: ${(error as Error).message}`);
    }
    if (sent.owner === null || sent.owner === this.#me) return null;
    if (sent.receivers === 0) throw unavailable(kind, target, `its hub instance ${sent.owner} is gone`);
    const pending = this.#pending.get(message.id);
    if (pending) pending.owner = sent.owner;
    return sent.owner;
  }

  #awaitAnswer(id: string, about: { conn: string; kind: TargetKind; target: string }, budget: Budget): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      let late: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        const pending = this.#pending.get(id);
        if (!pending) return;
        const fail = (): void => this.#settle(id, () => reject(budget.reason as Error));
        // The owner ran out of the same budget and answers TIMEOUT itself; a cancel is passed on at once.
        if (budget.isTimedOut) late = setTimeout(fail, LATE_ANSWER_MS);
        else {
          if (pending.owner) this.#cancelOn(pending.owner, id, pending.conn);
          fail();
        }
      };
      let unwatch = (): void => {};
      const dispose = (): void => {
        clearTimeout(late);
        unwatch();
      };
      this.#pending.set(id, { owner: null, ...about, resolve, reject, dispose });
      // Told at once when the budget has already ended: the entry is there for onAbort to find.
      unwatch = budget.onEnd(onAbort);
    });
  }

  #cancelOn(owner: string, id: string, conn: string): void {
    this.#registry.send(owner, { type: "cancel", id, from: this.#me, conn }, SEND_TIMEOUT_MS).catch(() => {});
  }

  #settle(id: string, finish: () => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.dispose();
    finish();
  }

  #failWhere(match: (pending: Pending) => boolean, why: string): void {
    for (const [id, pending] of [...this.#pending]) {
      if (match(pending)) this.#settle(id, () => pending.reject(unavailable(pending.kind, pending.target, why)));
    }
  }

  #enter(connection: ConnectionState): Caller {
    let caller = this.#callers.get(connection.id);
    if (!caller) {
      const onClose = (): void => this.#closed(connection.id);
      caller = { connection, pending: 0, subscriptions: new Map(), dropped: new Map(), owners: new Set(), subscribed: false, onClose };
      this.#callers.set(connection.id, caller);
      connection.closed.addEventListener("abort", onClose, { once: true });
    }
    caller.pending++;
    return caller;
  }

  // A connection with nothing left elsewhere is forgotten; a later call registers it again.
  #leaveIfIdle(caller: Caller): void {
    if (caller.pending > 0 || caller.subscriptions.size > 0 || (caller.subscribed && caller.owners.size > 0)) return;
    this.#callers.delete(caller.connection.id);
    caller.connection.closed.removeEventListener("abort", caller.onClose);
  }

  #closed(conn: string): void {
    const caller = this.#callers.get(conn);
    if (!caller) return;
    this.#callers.delete(conn);
    for (const owner of caller.owners)
      this.#registry.send(owner, { type: "closed", from: this.#me, conn }, SEND_TIMEOUT_MS).catch(() => {});
  }

  #noteSubscription(caller: Caller, result: object, where: { owner: string; target: string }): void {
    const subscriptionId = (result as { subscriptionId?: unknown }).subscriptionId;
    if (typeof subscriptionId !== "string") return;
    caller.subscriptions.set(subscriptionId, where);
    caller.subscribed = true;
  }

  #forgetSubscription(caller: Caller, subscriptionId: unknown): void {
    if (typeof subscriptionId !== "string") return;
    caller.subscriptions.delete(subscriptionId);
    caller.dropped.delete(subscriptionId);
  }
}

/** The params as the owner runs them: a tab call with what is left of its budget, a traced one with its trace context (copied only then). */
function forwardedParams(params: Record<string, unknown>, budget: Budget, traceparent: string | undefined): Record<string, unknown> {
  if (!("target" in params) && traceparent === undefined) return params;
  return {
    ...params,
    ...("target" in params ? { timeoutMs: Math.max(1, budget.remainingMs()) } : {}),
    ...(traceparent === undefined ? {} : { traceparent }),
  };
}
