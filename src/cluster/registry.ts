import { claimOf, clientOfClaim, egressOfClaim } from "./claims.js";
import { UnsendableMessageError, type ClusterCodec } from "./cluster-codec.js";
import type { TargetKind } from "./forward-errors.js";
import { keys, type CallMessage, type ClusterMessage, type EventMessage } from "./messages.js";
import type { RedisLink } from "./redis-link.js";
import { CLAIM_IF_FREE_SCRIPT, LEAVE_SCRIPT, RELEASE_SCRIPT, READ_OTHERS_SCRIPT, SEND_TO_OWNER_SCRIPT, SYNC_SCRIPT } from "./scripts.js";

/** What an instance holds now: the claims it owns (see claims.ts) and its listing (field -> JSON). */
export interface LocalTargets {
  owned: ReadonlySet<string>;
  listing: ReadonlyMap<string, string>;
}

/** What a refresh found out: claims a newer owner took, and instances a new claim took one from. */
export interface SyncOutcome {
  fenced: string[];
  evicted: { instance: string; target: string; epoch: string }[];
}

/** Another instance's listing as read from Redis. */
export interface OtherInstance {
  id: string;
  /** Milliseconds until its records expire unless it refreshes them. */
  expiresInMs: number;
  listing: Map<string, string>;
}

/**
 * The cluster registry in Redis: which instance owns each `clientId:tabId` (with a TTL that instance refreshes
 * and an epoch that fences a stale owner off), each instance's listing, and the set of live instances.
 */
export class ClusterRegistry {
  readonly instanceId: string;
  #link: RedisLink;
  #ttlMs: number;
  #codec: ClusterCodec;
  // The epoch of each target this instance owns, as Redis granted it.
  #epochs = new Map<string, string>();

  constructor(link: RedisLink, options: { instanceId: string; ttlMs: number; codec: ClusterCodec }) {
    this.#link = link;
    this.instanceId = options.instanceId;
    this.#ttlMs = options.ttlMs;
    this.#codec = options.codec;
  }

  /** The epoch under which this instance owns a claim, if it does. */
  epochOf(claim: string): string | undefined {
    return this.#epochs.get(claim);
  }

  /**
   * Claims what no instance holds (a persistent client whose instance is gone); true when this instance holds it now,
   * and then refreshes it with its other claims while its listing owns it.
   */
  async claimIfFree(claim: string, timeoutMs: number): Promise<boolean> {
    const input = { keys: [keys.owner(claim)], args: [this.instanceId, String(this.#ttlMs)] };
    const epoch = String(await this.#link.script(CLAIM_IF_FREE_SCRIPT, input, timeoutMs));
    if (epoch === "0") return false;
    this.#epochs.set(claim, epoch);
    return true;
  }

  /** The instance that holds a claim now, or null. */
  async ownerOf(claim: string, timeoutMs: number): Promise<string | null> {
    const current = await this.#link.command(["GET", keys.owner(claim)], timeoutMs);
    return typeof current === "string" ? (current.split("|")[0] ?? null) : null;
  }

  /** Releases a claim made with claimIfFree (the client is no longer persistent). */
  async release(claim: string, timeoutMs: number): Promise<void> {
    this.#epochs.delete(claim);
    await this.#link.script(RELEASE_SCRIPT, { keys: [keys.owner(claim)], args: [this.instanceId] }, timeoutMs);
  }

  /** Forgets a claim a newer owner took. */
  forget(claim: string): void {
    this.#epochs.delete(claim);
  }

  /** Claims and refreshes what the instance holds, releases what it no longer does, and rewrites its listing. */
  async sync(local: LocalTargets, info: object, timeoutMs: number): Promise<SyncOutcome> {
    const me = this.instanceId;
    const claims = [...local.owned];
    // Claims made with claimIfFree are released on their own (release), never by a refresh that does not list them.
    const releases = [...this.#epochs.keys()].filter(
      (target) => !local.owned.has(target) && clientOfClaim(target) === null && egressOfClaim(target) === null,
    );
    const epochs = claims.map((target) => this.#epochs.get(target) ?? "0");
    const scriptKeys = [keys.instance(me), keys.targets(me), keys.instances, ...claims.map(keys.owner), ...releases.map(keys.owner)];
    const args = [
      me,
      String(this.#ttlMs),
      JSON.stringify(info),
      String(claims.length),
      String(releases.length),
      ...epochs,
      ...[...local.listing].flat(),
    ];
    const results = (await this.#link.script(SYNC_SCRIPT, { keys: scriptKeys, args }, timeoutMs)) as [string, string][];
    for (const target of releases) this.#epochs.delete(target);
    const outcome: SyncOutcome = { fenced: [], evicted: [] };
    claims.forEach((target, index) => {
      const [epoch = "0", other = ""] = results[index] ?? [];
      if (epoch === "0") {
        this.#epochs.delete(target);
        outcome.fenced.push(target);
        return;
      }
      this.#epochs.set(target, epoch);
      if (other !== "") outcome.evicted.push({ instance: other, target, epoch });
    });
    return outcome;
  }

  /**
   * Sends a call to the owner of the target's tab or agent (or of a client: whoever holds its egress policy, else
   * whoever keeps it persistent) in one round trip; owner null when no instance holds it. Rejects with
   * UnsendableMessageError, before anything is sent, when the call is over CLUSTER_MAX_MESSAGE_BYTES.
   */
  async sendToOwner(
    to: { kind: TargetKind; target: string },
    message: CallMessage,
    timeoutMs: number,
  ): Promise<{ owner: string | null; receivers: number }> {
    const { kind, target } = to;
    const text = this.#codec.encode(message, kind === "client" ? `@@${target}` : `@${target}`);
    const claims = kind === "client" ? [claimOf("egress", target), claimOf("client", target)] : [claimOf(kind, target)];
    const input = { keys: claims.map(keys.owner), args: [this.instanceId, keys.inbox(""), text] };
    const reply = (await this.#link.script(SEND_TO_OWNER_SCRIPT, input, timeoutMs)) as [string, number];
    return { owner: reply[0] === "" ? null : reply[0], receivers: Number(reply[1]) };
  }

  /** Sends a message to one instance; resolves with whether it is listening, rejects with UnsendableMessageError when it cannot be sent. */
  async send(instance: string, message: ClusterMessage, timeoutMs: number): Promise<boolean> {
    return (await this.#link.publish(keys.inbox(instance), this.#codec.encode(message, instance), timeoutMs)) > 0;
  }

  /** Sends a message in the background; false (and counted) when it is too big or too deep to send, so it was not. */
  trySend(instance: string, message: ClusterMessage, timeoutMs: number): boolean {
    let text: string;
    try {
      text = this.#codec.encode(message, instance);
    } catch (error) {
      if (error instanceof UnsendableMessageError) return false;
      throw error;
    }
    this.#link.publish(keys.inbox(instance), text, timeoutMs).catch(() => {});
    return true;
  }

  /** Tells every instance about a tab or agent event. */
  async broadcast(message: EventMessage, timeoutMs: number): Promise<void> {
    await this.#link.publish(keys.events, this.#codec.encode(message, "*"), timeoutMs);
  }

  /** The other live instances with their listings. */
  async readOthers(timeoutMs: number): Promise<OtherInstance[]> {
    const reply = (await this.#link.script(
      READ_OTHERS_SCRIPT,
      { keys: [keys.instances], args: [this.instanceId, keys.targets("")] },
      timeoutMs,
    )) as [string, number, string[]][];
    return reply.map(([id, left, flat]) => {
      const listing = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) listing.set(flat[i] as string, flat[i + 1] as string);
      return { id, expiresInMs: Number(left), listing };
    });
  }

  /** Of these instances, the ones still listening on their channel (a dead process's connection is gone at once). */
  async listening(instances: string[], timeoutMs: number): Promise<Set<string>> {
    if (instances.length === 0) return new Set();
    const reply = (await this.#link.command(["PUBSUB", "NUMSUB", ...instances.map(keys.inbox)], timeoutMs)) as (string | number)[];
    const alive = new Set<string>();
    instances.forEach((instance, index) => {
      if (Number(reply[index * 2 + 1]) > 0) alive.add(instance);
    });
    return alive;
  }

  /** Releases everything this instance owns and removes its records (a graceful stop). */
  async leave(timeoutMs: number): Promise<void> {
    const me = this.instanceId;
    const owned = [...this.#epochs.keys()].map(keys.owner);
    this.#epochs.clear();
    await this.#link.script(LEAVE_SCRIPT, { keys: [keys.instance(me), keys.targets(me), keys.instances, ...owned], args: [me] }, timeoutMs);
  }
}
