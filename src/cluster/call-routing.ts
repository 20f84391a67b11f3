import { parseTarget } from "../target-id.js";
import type { Topic } from "../events/event-topics.js";
import type { CallContext, ConnectionState, MethodDefinition } from "../rpc/method.js";
import { defaultClientOf, type HubServices } from "../services.js";
import type { Forwarder, TargetKind } from "./forwarder.js";

type Method = MethodDefinition<HubServices>;
type Call = CallContext<HubServices>;

/** What routing needs: the hub's parts, the forwarder, and the cluster's hooks around a local run. */
export interface CallRoutingOptions {
  services: HubServices;
  forwarder: Forwarder;
  /** Runs after a method ran here (rewrites this instance's listing after calls that change it), within `waitMs`. */
  afterLocal(method: Method, waitMs: number): Promise<void>;
  /** Records a connection's events.subscribe topics for the other instances' events. */
  watch(connection: ConnectionState, topics: readonly Topic[]): void;
  /** Whether this instance keeps a client (holds its egress policy, or keeps it persistent): its calls run here. */
  keeps(clientId: string): boolean;
}

/**
 * Wraps each hub method so that a call whose target lives on another instance runs there: the router validates
 * the params, counts the call and holds its budget here as for any call, and the wrapper forwards it.
 */
export class CallRouting {
  #options: CallRoutingOptions;

  constructor(options: CallRoutingOptions) {
    this.#options = options;
  }

  /** The method as this instance serves it in a cluster, routed by where its traits say it runs. */
  wrap(method: Method): Method {
    const { runs, subscription } = method.traits;
    const run: Method["run"] =
      subscription === "topics"
        ? (params, call) => this.#watchTopics(method, params, call)
        : runs === "subscription"
          ? (params, call) => this.#unsubscribe(method, params, call)
          : runs === "here"
            ? (params, call) => this.#runHere(method, params, call)
            : runs === "client"
              ? (params, call) => this.#routeClient(method, params, call)
              : (params, call) => this.#route(method, params, call);
    return { name: method.name, traits: method.traits, run };
  }

  async #watchTopics(method: Method, params: object, call: Call): Promise<unknown> {
    const result = await method.run(params, call);
    this.#options.watch(call.connection, (result as { topics: Topic[] }).topics);
    return result;
  }

  async #route(method: Method, params: object, call: Call): Promise<unknown> {
    const target = (params as { target?: unknown }).target;
    const kind: TargetKind = method.traits.runs === "agent" ? "agent" : "tab";
    if (typeof target !== "string" || !this.#elsewhere(target, kind, call.connection)) return this.#runHere(method, params, call);
    const { connection, budget } = call;
    const result = await this.#options.forwarder.forward(
      { method, params: params as Record<string, unknown>, connection, budget },
      { kind },
    );
    return result ?? this.#runHere(method, params, call);
  }

  // A call on a client's browser context runs where the client is kept, if another instance keeps it: a client with
  // an egress policy of its own has a context only there (made behind its proxy), a persistent one has its tabs there.
  async #routeClient(method: Method, params: object, call: Call): Promise<unknown> {
    const clientId = this.#clientOf(params, call.connection);
    if (clientId === null || this.#options.keeps(clientId)) return this.#runHere(method, params, call);
    const { connection, budget } = call;
    // The client is named in what is sent (the owner's default client, or the connection's first, could be another).
    const given = params as Record<string, unknown>;
    const named = given.clientId !== undefined || given.target !== undefined ? given : { ...given, clientId };
    const result = await this.#options.forwarder.forward(
      { method, params: named, connection, budget },
      { kind: "client", target: clientId },
    );
    return result ?? this.#runHere(method, params, call);
  }

  // The client a call names (its clientId, its target's client, else the caller's own, as callerClient picks it),
  // or null when the caller may not see it: that call runs here, and answers FORBIDDEN without asking Redis.
  #clientOf(params: object, connection: ConnectionState): string | null {
    const { clients, config } = this.#options.services;
    const { clientId, target } = params as { clientId?: unknown; target?: unknown };
    let named: string | undefined;
    try {
      named = typeof clientId === "string" ? clientId : typeof target === "string" ? parseTarget(target).clientId : undefined;
    } catch {
      return null;
    }
    const chosen = named ?? defaultClientOf(connection, config.defaultClientId);
    return clients.canSee(connection, chosen) ? chosen : null;
  }

  async #unsubscribe(method: Method, params: object, call: Call): Promise<unknown> {
    const { forwarder } = this.#options;
    const owner = forwarder.hasSubscription(call.connection, String((params as { subscriptionId?: unknown }).subscriptionId));
    const { connection, budget } = call;
    const result = owner
      ? await forwarder.forward({ method, params: params as Record<string, unknown>, connection, budget }, { kind: "tab", owner })
      : null;
    return result ?? method.run(params, call);
  }

  async #runHere(method: Method, params: object, call: Call): Promise<unknown> {
    const result = await method.run(params, call);
    await this.#options.afterLocal(method, call.budget.remainingMs());
    return result;
  }

  // A target may live elsewhere when it is well formed, the caller may see its client, and this instance lacks it:
  // the agent, for agent calls (it may be connected to another instance than its tab's Chrome), the tab for the rest.
  // Everything else runs here, and answers here (INVALID_PARAMS, TARGET_NOT_FOUND) without asking Redis.
  #elsewhere(target: string, kind: TargetKind, connection: ConnectionState): boolean {
    const { clients, browser, agents } = this.#options.services;
    let tabId: string;
    try {
      const parsed = parseTarget(target);
      if (!clients.canSee(connection, parsed.clientId)) return false;
      tabId = parsed.tabId;
    } catch {
      return false;
    }
    return kind === "agent" ? agents.get(target) === undefined : browser.page(tabId) === undefined;
  }
}
