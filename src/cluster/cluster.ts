import { v4 as uuidv4 } from "uuid";
import type { Budget } from "../budget.js";
import type { AgentRecord } from "../agents/agent-registry.js";
import type { Caller, ClientEntry, TabEntry } from "../clients/client-manager.js";
import type { Config } from "../config.js";
import { log } from "../log.js";
import type { MethodDefinition, MethodTraits } from "../rpc/method.js";
import type { ParamsValidator } from "../rpc/params-validator.js";
import { Router } from "../rpc/router.js";
import type { HubServices } from "../services.js";
import { CallRouting } from "./call-routing.js";
import { agentOfClaim, claimOf, clientOfClaim, egressOfClaim } from "./claims.js";
import { ClusterCodec } from "./cluster-codec.js";
import { ClusterEvents } from "./cluster-events.js";
import type { ClusterView, RemoteTargets } from "../clients/cluster-view.js";
import { DROP_REASONS, DropCounter } from "./drop-counter.js";
import { EgressHomes } from "./egress-homes.js";
import { ForwardedCalls } from "./forwarded-calls.js";
import { Forwarder } from "./forwarder.js";
import { localTargets, mergeClients, mergeTabs } from "./listing.js";
import { keys, type ClusterMessage, type EventMessage, type EvictMessage } from "./messages.js";
import { RedisLink } from "./redis-link.js";
import { RedisStates } from "./redis-states.js";
import { ClusterRegistry } from "./registry.js";
import { RemoteView } from "./remote-view.js";
import { StateSealer } from "./sealed-state.js";
import { SerialRunner } from "./serial-runner.js";
import { ClusterSessions } from "./cluster-sessions.js";
import type { SessionServing } from "./session-hosts.js";

type Method = MethodDefinition<HubServices>;

/** What joining a cluster needs: the hub's settings and parts, and the methods it serves. */
export interface JoinOptions {
  config: Config;
  services: HubServices;
  validator: ParamsValidator;
  methods: readonly Method[];
}

// How long a listing or a call's relisting waits for Redis before it goes on with what it has.
const REDIS_WAIT_MS = 1_000;
// After this instance reconnects to Redis, how long the others have to be back on their channels.
const RESUBSCRIBE_GRACE_MS = 2_000;

/** Joins the cluster in Redis (waiting a few seconds at most for Redis) and returns this instance's part in it. */
export async function joinCluster(options: JoinOptions): Promise<Cluster> {
  const cluster = new Cluster(options);
  await cluster.connect();
  return cluster;
}

/**
 * One hub instance in a cluster that shares a Redis: it keeps its tabs and agents in the registry, forwards calls
 * for targets other instances own, runs theirs for its own, and lists the whole cluster.
 */
export class Cluster implements ClusterView {
  readonly instanceId: string;
  /** The hub's methods, each routed to the instance that owns its target. */
  readonly methods: readonly Method[];
  #services: HubServices;
  #ttlMs: number;
  #link: RedisLink;
  #codec: ClusterCodec;
  #registry: ClusterRegistry;
  #forwarder: Forwarder;
  #calls: ForwardedCalls;
  #events: ClusterEvents;
  #view: RemoteView;
  #states: RedisStates;
  #homes: EgressHomes;
  #sessions: ClusterSessions;
  #sync = new SerialRunner(
    () => this.#syncOnce(),
    (error) => this.#syncFailed(error),
  );
  #viewRead: SerialRunner;
  #info: { url: string | null; startedAt: number; pid: number } = { url: null, startedAt: Date.now(), pid: process.pid };
  // Targets a newer owner took; not claimed again while this instance still has them.
  #yielded = new Set<string>();
  #evicted = new WeakSet<AgentRecord>();
  #syncFailing = false;
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #watchdogFrom = 0;

  constructor(options: JoinOptions) {
    const { config, services } = options;
    this.instanceId = config.instanceId ?? `hub-${uuidv4().slice(0, 8)}`;
    this.#services = services;
    this.#ttlMs = config.clusterTtlMs;
    if (config.clusterSecret === null) throw new Error("a cluster needs CLUSTER_SECRET to sign its messages");
    const drops = new DropCounter({ count: services.metrics.clusterDrops(DROP_REASONS) });
    this.#codec = new ClusterCodec({
      secret: config.clusterSecret,
      instanceId: this.instanceId,
      maxMessageBytes: config.clusterMaxMessageBytes,
      drops,
    });
    this.#link = new RedisLink({
      url: config.redisUrl ?? "",
      caFile: config.redisCaFile,
      channels: [keys.inbox(this.instanceId), keys.events],
      onMessage: (text, channel) => this.#onMessage(text, channel),
      onReady: () => {
        // The others may still be resubscribing after the same Redis restart: no one is declared dead meanwhile.
        this.#watchdogFrom = Date.now() + RESUBSCRIBE_GRACE_MS;
        void this.#tick();
      },
      onDown: () => this.#forwarder.linkDown(),
    });
    this.#registry = new ClusterRegistry(this.#link, { instanceId: this.instanceId, ttlMs: this.#ttlMs, codec: this.#codec });
    this.#forwarder = new Forwarder(this.#registry);
    // Persistent clients are kept in Redis, sealed, so another instance can put them back when this one is gone.
    const sealer = new StateSealer(config.clusterSecret);
    this.#states = new RedisStates({ link: this.#link, registry: this.#registry, sealer, timeoutMs: this.#redisTimeoutMs() });
    services.persistent.useStore(this.#states);
    // A client's own egress policy lives on one instance, the only one that makes its browser context.
    this.#homes = new EgressHomes(this.#registry, () => this.#redisTimeoutMs());
    services.egress.useHome(this.#homes);
    const sessionOptions = { link: this.#link, registry: this.#registry, windowMs: config.resume.windowMs };
    this.#sessions = new ClusterSessions({ ...sessionOptions, timeoutMs: this.#redisTimeoutMs() });
    this.#view = new RemoteView(this.#registry);
    this.#viewRead = new SerialRunner(
      () => this.#view.refresh(this.#redisTimeoutMs()),
      () => {},
    );
    // Forwarded calls run on the plain methods, so a call never travels twice.
    const router = new Router({ methods: options.methods, services, validator: options.validator, ...config });
    const traits = new Map(options.methods.map((method) => [method.name, method.traits]));
    this.#calls = new ForwardedCalls({
      registry: this.#registry,
      router,
      traitsOf: (method) => traits.get(method),
      afterCall: (methodTraits) => this.#relist(methodTraits),
    });
    this.#events = new ClusterEvents({
      services,
      registry: this.#registry,
      relist: () => this.#sync.request(),
      isEvicted: (agent) => this.#evicted.has(agent),
      timeoutMs: this.#redisTimeoutMs(),
    });
    const routing = this.#routing(services);
    this.methods = options.methods.map((method) => routing.wrap(method));
  }

  // How this instance's callers' calls reach the instance that owns their target (or keeps their client).
  #routing(services: HubServices): CallRouting {
    return new CallRouting({
      services,
      forwarder: this.#forwarder,
      afterLocal: (method, waitMs) => this.#relist(method.traits, waitMs),
      watch: (connection, topics) => this.#events.watch(connection, topics),
      keeps: (clientId) => this.#homes.holds(clientId) || this.#registry.epochOf(claimOf("client", clientId)) !== undefined,
    });
  }

  /** Connects to Redis and starts refreshing this instance's records every third of the TTL. */
  async connect(): Promise<void> {
    await this.#link.connect();
    this.#timer = setInterval(() => void this.#tick(), Math.max(100, Math.floor(this.#ttlMs / 3)));
    this.#timer.unref();
    log.info("cluster: this hub is an instance of the cluster", { instance: this.instanceId, ttlMs: this.#ttlMs });
  }

  /** Records where this instance listens, for the people who read Redis. */
  announce(url: string): void {
    this.#info.url = url;
    void this.#sync.request();
  }

  /** Lets a session dropped here be resumed through another instance, and one kept elsewhere be resumed here. */
  serveSessions(serving: SessionServing): void {
    this.#sessions.serve(serving);
  }

  async tabs(caller: Caller, clientId: string | undefined, budget: Budget): Promise<TabEntry[]> {
    const local = this.#services.clients.tabs(caller, clientId);
    await within(this.#viewRead.request(), Math.min(REDIS_WAIT_MS, budget.remainingMs()));
    return mergeTabs(local, this.#view.current(), { caller, clientId });
  }

  async clients(caller: Caller, budget: Budget): Promise<ClientEntry[]> {
    const local = this.#services.clients.clients(caller);
    await within(this.#viewRead.request(), Math.min(REDIS_WAIT_MS, budget.remainingMs()));
    return mergeClients(local, this.#view.current(), caller);
  }

  remote(): RemoteTargets {
    return this.#view.current();
  }

  /** Leaves the cluster: calls both ways end, this instance's targets are released at once, the links close. */
  async leave(): Promise<void> {
    clearInterval(this.#timer);
    this.#events.stop();
    this.#sessions.closeAll();
    this.#calls.closeAll();
    this.#forwarder.failAll();
    await this.#registry
      .leave(REDIS_WAIT_MS)
      .catch((error: unknown) => log.warn("cluster: cannot release this instance's targets", { error: (error as Error).message }));
    this.#link.close();
  }

  // A call that changes listings answers after this instance's listing in Redis is rewritten (or REDIS_WAIT_MS).
  async #relist(traits: MethodTraits | undefined, waitMs = REDIS_WAIT_MS): Promise<void> {
    if (traits?.changesListings) await within(this.#sync.request(), Math.min(REDIS_WAIT_MS, waitMs));
  }

  async #syncOnce(): Promise<void> {
    const local = localTargets(this.#services);
    for (const claim of this.#yielded) if (!local.owned.has(claim)) this.#yielded.delete(claim);
    const owned = new Set([...local.owned].filter((claim) => !this.#yielded.has(claim)));
    // A persistent client's claim is only taken with claimIfFree (never from a live instance); refreshed here.
    for (const clientId of this.#services.persistent.keptIds()) {
      const claim = claimOf("client", clientId);
      if (this.#registry.epochOf(claim) !== undefined) owned.add(claim);
    }
    this.#homes.refresh(owned, this.#services.egress.ownIds());
    const outcome = await this.#registry.sync({ owned, listing: local.listing }, this.#info, this.#redisTimeoutMs());
    if (this.#syncFailing) log.info("cluster: the registry in Redis is written again");
    this.#syncFailing = false;
    for (const claim of outcome.fenced) this.#evictHere(claim, "a newer claim in the registry fenced this instance off");
    for (const { instance, target, epoch } of outcome.evicted) {
      const evict: EvictMessage = { type: "evict", target, epoch };
      this.#registry.send(instance, evict, this.#redisTimeoutMs()).catch(() => {});
    }
  }

  #syncFailed(error: unknown): void {
    if (!this.#syncFailing) log.warn("cluster: cannot write the registry in Redis; retrying", { error: (error as Error).message });
    this.#syncFailing = true;
  }

  // A newer connection of this agent registered on another instance: this one is stale, as on a single hub. A
  // persistent client another instance took over (this one missed its refreshes) is that instance's to save.
  #evictHere(claim: string, why: string): void {
    this.#yielded.add(claim);
    this.#registry.forget(claim);
    const policed = egressOfClaim(claim);
    if (policed !== null) {
      log.warn("cluster: another instance took the egress policy of a client this one holds; its calls go there now", {
        clientId: policed,
        why,
      });
      return;
    }
    const client = clientOfClaim(claim);
    if (client !== null) {
      log.warn("cluster: another instance took over a persistent client; this one no longer saves it", { clientId: client, why });
      return this.#services.persistent.release(client);
    }
    const target = agentOfClaim(claim);
    const agent = target === null ? undefined : this.#services.agents.get(target);
    if (!agent) return;
    log.info("cluster: an agent reconnected to another instance; closing its old connection here", { target, why });
    this.#evicted.add(agent);
    this.#services.agents.remove(agent);
    agent.link.replace();
  }

  // Nothing reads a message the codec did not verify and check, and nothing it does throws into the Redis client.
  #onMessage(text: string, channel: string): void {
    const message = this.#codec.decode(text, channel);
    if (message === null) return;
    try {
      this.#dispatch(message);
    } catch (error) {
      log.error("cluster: a message from another instance could not be handled", { type: message.type, error: (error as Error).stack });
    }
  }

  #dispatch(message: ClusterMessage): void {
    switch (message.type) {
      case "call":
        return void this.#calls
          .onCall(message)
          .catch((error: unknown) => log.error("cluster: a forwarded call failed", { error: (error as Error).stack }));
      case "cancel":
        return this.#calls.onCancel(message);
      case "closed":
        return this.#calls.onClosed(message);
      case "answer":
        return this.#forwarder.onAnswer(message);
      case "notify":
        return this.#forwarder.onNotify(message);
      case "evict": {
        const mine = this.#registry.epochOf(message.target);
        if (mine !== undefined && Number(mine) < Number(message.epoch)) this.#evictHere(message.target, "evicted by the newer owner");
        return;
      }
      case "event":
        if (message.from !== this.instanceId) this.#onRemoteEvent(message);
        return;
      case "resume":
      case "resumed":
      case "frame":
      case "untunnel":
        return this.#sessions.onMessage(message);
    }
  }

  #onRemoteEvent(message: EventMessage): void {
    // A console subscriber of the tab already got tab.closed from the owner, as on a single hub it gets one.
    const closed = message.method === "tab.closed" ? String(message.params.target) : null;
    this.#events.deliver(message, (connection) => closed !== null && this.#forwarder.watchesTarget(connection, closed));
    if (closed !== null) this.#forwarder.forgetTarget(closed);
    void this.#viewRead.request();
  }

  // Every third of the TTL: refresh the registry, re-read the others, and end what waits on instances that died.
  async #tick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      await this.#sync.request();
      await this.#viewRead.request();
      await this.#adoptOrphans();
      if (Date.now() < this.#watchdogFrom) return;
      const watched = [...new Set([...this.#forwarder.owners(), ...this.#calls.callers(), ...this.#sessions.instances()])];
      const alive = await this.#registry.listening(watched, this.#redisTimeoutMs()).catch(() => null);
      for (const instance of alive ? watched.filter((id) => !alive.has(id)) : []) {
        this.#forwarder.ownerGone(instance);
        this.#calls.callerGone(instance);
        this.#sessions.instanceGone(instance);
      }
    } finally {
      this.#ticking = false;
    }
  }

  // Persistent clients whose instance is gone (their claim ran out): the first instance to claim one puts it back.
  async #adoptOrphans(): Promise<void> {
    const orphans = await this.#states.orphans().catch(() => []);
    for (const clientId of orphans) {
      const claimed = await this.#registry.claimIfFree(claimOf("client", clientId), this.#redisTimeoutMs()).catch(() => false);
      if (!claimed) continue;
      log.info("cluster: taking over a persistent client whose instance is gone", { clientId });
      // In the background: the refreshes of this instance's claims go on while the client's tabs load.
      void this.#services.persistent.adopt(clientId).then(() => this.#sync.request());
    }
  }

  #redisTimeoutMs(): number {
    return Math.max(500, Math.min(2_000, Math.floor(this.#ttlMs / 2)));
  }
}

/** Waits for `work` at most `ms` (it never rejects); the caller goes on with what it has. */
async function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}
