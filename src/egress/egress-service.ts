import { EventEmitter } from "node:events";
import type { ClientPolicy, OwnEgress } from "../egress-rules.js";
import { HubError, isHubError } from "../errors.js";
import { log } from "../log.js";
import type { NamedPolicy } from "./egress-decision.js";
import { EGRESS_PROXY_USER, EgressProxy, type EgressRefusal } from "./egress-proxy.js";
import { normaliseHost } from "../egress-rules.js";
import { checkedPolicy, checkedUpstream } from "./policy-check.js";

/** How the egress service is set up: the test names of EGRESS_HOSTS and where the token policies come from. */
export interface EgressServiceOptions {
  hosts: ReadonlyMap<string, string>;
  /** The policies of the caller's token (ACCESS_FILE) for a client; none by default. */
  tokenPolicies?: (clientId: string) => readonly ClientPolicy[];
  /** Why this Chrome cannot be held to a policy (WebRTC around the proxy), or null; an embedded Chrome always can. */
  whyUnenforceable?: () => Promise<string | null>;
}

/**
 * Where clients' own policies live in a cluster: on one instance each, which alone makes the client's browser
 * context (behind its proxy); none on a single hub.
 */
export interface EgressHome {
  /** Makes this instance the one that holds a client's own policy (clients.configure); throws a HubError when it cannot. */
  take(clientId: string): Promise<void>;
  /** The other instance that holds a client's own policy, or null; rejects when that cannot be known (Redis away). */
  elsewhere(clientId: string): Promise<string | null>;
  /** This instance no longer holds the client's own policy (the client expired here). */
  release(clientId: string): void;
}

// Refusals kept a client, so that navigate and network.list can name the rule of a failure Chrome reports later.
const RECENT_REFUSALS = 64;
const MAX_OWN_POLICIES = 16;

/**
 * The egress policies of the clients and their proxies: a client with a policy (its own or its token's) gets a
 * proxy when its browser context is made, closed when the context goes; refusals are told as `blocked`.
 */
export class EgressService extends EventEmitter<{ blocked: [refusal: EgressRefusal] }> {
  #options: EgressServiceOptions;
  #own = new Map<string, OwnEgress>();
  #proxies = new Map<string, Promise<EgressProxy>>();
  #recent = new Map<string, EgressRefusal[]>();
  #home: EgressHome | null = null;

  constructor(options: EgressServiceOptions) {
    super();
    this.setMaxListeners(0);
    this.#options = options;
  }

  /** Holds clients' own policies on one instance of a cluster each (set when the hub joins one). */
  useHome(home: EgressHome): void {
    this.#home = home;
  }

  /**
   * Makes this instance the one that holds a client's own policy, before the policy is taken (a cluster: refused
   * when the client has tabs on other instances, made without it).
   */
  async takeHome(clientId: string): Promise<void> {
    await this.#home?.take(clientId);
  }

  /**
   * Refuses a client's browser context here when another instance of the cluster holds the client's own policy (its
   * context is made only there, behind the policy's proxy), or when that cannot be known.
   */
  async checkHome(clientId: string): Promise<void> {
    if (!this.#home || this.#own.has(clientId)) return;
    let home: string | null;
    try {
      home = await this.#home.elsewhere(clientId);
    } catch (error) {
      throw new HubError(
        "BROWSER_UNAVAILABLE",
        `cannot learn whether another hub instance holds client ${clientId}'s egress policy (${(error as Error).message}); its browser context was not made here; retry shortly`,
      );
    }
    if (home !== null)
      throw new HubError(
        "BROWSER_UNAVAILABLE",
        `client ${clientId}'s egress policy is held by hub instance ${home}: its browser context is made only there; connect to that instance (calls on the client's tabs reach it through any instance)`,
      );
  }

  /** Every policy a client's requests must pass: its token's and its own. */
  policiesOf(clientId: string): NamedPolicy[] {
    const tokens = (this.#options.tokenPolicies?.(clientId) ?? []).map((policy) => ({ name: "token", policy }));
    const own = (this.#own.get(clientId)?.policies ?? []).map((policy) => ({ name: "client", policy }));
    return [...tokens, ...own];
  }

  /** Whether a client's context must be made behind a proxy. */
  isPoliced(clientId: string): boolean {
    return this.policiesOf(clientId).length > 0 || this.#upstreamOf(clientId) !== undefined;
  }

  /** Whether the client's allowed traffic leaves through an upstream proxy. */
  hasUpstream(clientId: string): boolean {
    return this.#upstreamOf(clientId) !== undefined;
  }

  /** Whether the client's context already has its proxy. */
  hasProxy(clientId: string): boolean {
    return this.#proxies.has(clientId);
  }

  /** Adds a policy a client narrows itself with, and/or sets its upstream proxy; open tunnels are cut to be decided again. */
  configure(clientId: string, change: { policy?: ClientPolicy; upstreamProxy?: string }): void {
    const own = this.#own.get(clientId) ?? { policies: [] };
    if (change.policy) {
      if (own.policies.length >= MAX_OWN_POLICIES)
        throw new HubError(
          "INVALID_PARAMS",
          `client ${clientId} has ${MAX_OWN_POLICIES} policies already; each narrows, so give one that says it all`,
        );
      own.policies.push(change.policy);
    }
    if (change.upstreamProxy !== undefined) own.upstreamProxy = change.upstreamProxy;
    this.#own.set(clientId, own);
    void this.#proxies
      .get(clientId)
      ?.then((proxy) => proxy.cut())
      .catch(() => undefined);
  }

  /** What a client set itself (a copy), for a persistent client's saved state; undefined when nothing. */
  ownOf(clientId: string): OwnEgress | undefined {
    const own = this.#own.get(clientId);
    if (!own) return undefined;
    return { policies: [...own.policies], ...(own.upstreamProxy ? { upstreamProxy: own.upstreamProxy } : {}) };
  }

  /**
   * Puts back what a persistent client had set itself, before its context is made again (a restart, or another
   * instance of a cluster taking it over); throws INVALID_PARAMS for a saved policy this hub would not accept.
   */
  restore(clientId: string, saved: OwnEgress): void {
    if (saved.policies.length > MAX_OWN_POLICIES) throw new HubError("INVALID_PARAMS", `more than ${MAX_OWN_POLICIES} policies are saved`);
    const policies = saved.policies.map((policy, index) => checkedPolicy(policy, `/egress/policies/${index}`));
    const upstreamProxy = saved.upstreamProxy === undefined ? undefined : checkedUpstream(saved.upstreamProxy, "/egress/upstreamProxy");
    this.#own.set(clientId, { policies, ...(upstreamProxy ? { upstreamProxy } : {}) });
  }

  /**
   * Gives a new client (a /cdp connection's context of its own) every policy and the upstream proxy of the client that
   * made it: its token's (ACCESS_FILE) as well as its own, since the new client's id is in no token's list.
   */
  inherit(clientId: string, parentId: string): void {
    const policies = this.policiesOf(parentId).map((named) => named.policy);
    const upstreamProxy = this.#upstreamOf(parentId);
    if (policies.length > 0 || upstreamProxy !== undefined)
      this.#own.set(clientId, { policies, ...(upstreamProxy === undefined ? {} : { upstreamProxy }) });
  }

  /** Why a policy given now could not be enforced (a sentence), or null when it can. */
  async whyUnenforceable(): Promise<string | null> {
    return (await this.#options.whyUnenforceable?.()) ?? null;
  }

  /** The proxy URL a policed client's new context is made with (null: the client has no policy), started now. */
  async open(clientId: string): Promise<string | null> {
    await this.checkHome(clientId);
    if (!this.isPoliced(clientId)) return null;
    const why = this.policiesOf(clientId).length > 0 ? await this.whyUnenforceable() : null;
    if (why !== null)
      throw new HubError("INTERNAL_ERROR", `client ${clientId} has an egress policy, and ${why}; its browser context was not made`);
    let opening = this.#proxies.get(clientId);
    if (!opening) {
      opening = this.#start(clientId);
      this.#proxies.set(clientId, opening);
      opening.catch(() => this.#proxies.delete(clientId));
    }
    try {
      return (await opening).url;
    } catch (error) {
      throw new HubError(
        "INTERNAL_ERROR",
        `the egress proxy of client ${clientId} cannot start (${(error as Error).message}); the context was not made`,
      );
    }
  }

  /** The credential Chrome answers the client's proxy with, if it has one. */
  async credentialsOf(clientId: string): Promise<{ username: string; password: string } | null> {
    const proxy = await this.#proxies.get(clientId)?.catch(() => undefined);
    return proxy ? { username: EGRESS_PROXY_USER, password: proxy.password } : null;
  }

  /** The client's context went (or was never made): its proxy is closed. */
  close(clientId: string): void {
    const proxy = this.#proxies.get(clientId);
    this.#proxies.delete(clientId);
    this.#recent.delete(clientId);
    void proxy
      ?.then((started) => started.close())
      .catch((error: Error) => log.warn("cannot close an egress proxy", { clientId, error: error.message }));
  }

  /** The client expired (its context idle for CLIENT_IDLE_MS): what it set itself goes with its cookies and storage. */
  forget(clientId: string): void {
    if (this.#own.delete(clientId)) this.#home?.release(clientId);
  }

  /** The clients that set a policy or an upstream proxy of their own here (a cluster claims them for this instance). */
  ownIds(): string[] {
    return [...this.#own.keys()];
  }

  /** The latest refusal of a client's request to a URL's host and port, if any. */
  refusalFor(clientId: string, url: string): EgressRefusal | undefined {
    const where = hostAndPort(url);
    if (!where) return undefined;
    return this.#recent.get(clientId)?.findLast((refusal) => refusal.host === where.host && refusal.port === where.port);
  }

  /**
   * A navigation's NAVIGATION_FAILED with `data.policy` {policy, rule, host} when the client's policy refused it: the
   * URL's own host, else (a redirect to a refused host) the latest refusal since the navigation began.
   */
  explain(error: unknown, clientId: string, navigation: { url: string; since: number }): unknown {
    if (!isHubError(error, "NAVIGATION_FAILED")) return error;
    const recent = (this.#recent.get(clientId) ?? []).filter((refusal) => refusal.at >= navigation.since);
    const refusal = this.refusalFor(clientId, navigation.url) ?? recent.at(-1);
    if (!refusal || refusal.at < navigation.since) return error;
    const { policy, rule, host } = refusal;
    const data = { ...(error.data as object | undefined), policy: { policy, rule, host } };
    return new HubError("NAVIGATION_FAILED", `${error.message} (refused by the egress policy: ${policy} ${rule}, host ${host})`, data);
  }

  /** Closes every proxy (the hub stops). */
  async closeAll(): Promise<void> {
    const proxies = [...this.#proxies.values()];
    this.#proxies.clear();
    await Promise.all(proxies.map((proxy) => proxy.then((started) => started.close()).catch(() => undefined)));
  }

  #upstreamOf(clientId: string): string | undefined {
    const fromToken = this.#options.tokenPolicies?.(clientId).find((policy) => policy.upstreamProxy)?.upstreamProxy;
    return fromToken ?? this.#own.get(clientId)?.upstreamProxy;
  }

  async #start(clientId: string): Promise<EgressProxy> {
    const proxy = new EgressProxy({
      clientId,
      policies: () => this.policiesOf(clientId),
      upstreamProxy: () => this.#upstreamOf(clientId),
      hosts: this.#options.hosts,
      onRefused: (refusal) => this.#refused(refusal),
    });
    await proxy.listen();
    return proxy;
  }

  #refused(refusal: EgressRefusal): void {
    const recent = this.#recent.get(refusal.clientId) ?? [];
    recent.push(refusal);
    if (recent.length > RECENT_REFUSALS) recent.shift();
    this.#recent.set(refusal.clientId, recent);
    this.emit("blocked", refusal);
  }
}

function hostAndPort(url: string): { host: string; port: number } | null {
  try {
    const parsed = new URL(url);
    const host = normaliseHost(parsed.hostname);
    const secure = parsed.protocol === "https:" || parsed.protocol === "wss:";
    return host === null ? null : { host, port: parsed.port === "" ? (secure ? 443 : 80) : Number(parsed.port) };
  } catch {
    return null;
  }
}
