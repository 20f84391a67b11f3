import { ClientRemovedError, type StateStore } from "../clients/state-store.js";
import { claimOf } from "./claims.js";
import { keys } from "./messages.js";
import type { RedisLink } from "./redis-link.js";
import type { ClusterRegistry } from "./registry.js";
import { ORPHANS_SCRIPT, REMOVE_STATE_SCRIPT, WRITE_STATE_SCRIPT } from "./scripts.js";
import type { StateSealer } from "./sealed-state.js";

// How long the instance that keeps a client has to see it was made not persistent (at its next save; a client with
// no tab is not saved until it opens one). A Redis that lost its data has no tombstone: the keeper writes again.
const TOMBSTONE_MS = 24 * 60 * 60 * 1000;

/** What the Redis store needs: the link, the registry (which holds the claims), the sealer, and how long to wait. */
export interface RedisStatesOptions {
  link: RedisLink;
  registry: ClusterRegistry;
  sealer: StateSealer;
  timeoutMs: number;
}

/**
 * Persistent clients' states in Redis, for a cluster: each sealed under `tabwire:state:<clientId>`, written only by
 * the instance that holds the client's claim (`client:<clientId>`, refreshed with its other claims), so when that
 * instance is gone another one takes the claim over and puts the client back from what Redis keeps.
 */
export class RedisStates implements StateStore {
  #options: RedisStatesOptions;
  // Clients taken by clients.configure whose first write (the one that makes them persistent) is still to come.
  #taken = new Set<string>();

  constructor(options: RedisStatesOptions) {
    this.#options = options;
  }

  keptAtStart(): string[] {
    return [];
  }

  async take(clientId: string): Promise<boolean> {
    const { registry, timeoutMs } = this.#options;
    const taken = await registry.claimIfFree(claimOf("client", clientId), timeoutMs);
    if (taken) this.#taken.add(clientId);
    return taken;
  }

  async read(clientId: string): Promise<string | null> {
    const { link, sealer, timeoutMs } = this.#options;
    const sealed = await link.command(["GET", keys.state(clientId)], timeoutMs);
    if (typeof sealed !== "string") return null;
    const text = sealer.open(clientId, sealed);
    if (text === null) throw new Error("the state Redis keeps was not sealed with this CLUSTER_SECRET for this client");
    return text;
  }

  async write(clientId: string, text: string): Promise<void> {
    const { link, registry, sealer, timeoutMs } = this.#options;
    const input = {
      keys: [keys.owner(claimOf("client", clientId)), keys.state(clientId), keys.persisted, keys.removed(clientId)],
      args: [registry.instanceId, clientId, sealer.seal(clientId, text), this.#taken.has(clientId) ? "1" : "0"],
    };
    const written = Number(await link.script(WRITE_STATE_SCRIPT, input, timeoutMs));
    if (written === 2) throw new ClientRemovedError(clientId);
    if (written !== 1) throw new Error("another hub instance keeps this client now; its state is that instance's to write");
    this.#taken.delete(clientId);
  }

  async remove(clientId: string): Promise<void> {
    const { link, registry, timeoutMs } = this.#options;
    this.#taken.delete(clientId);
    const input = { keys: [keys.state(clientId), keys.persisted, keys.removed(clientId)], args: [clientId, String(TOMBSTONE_MS)] };
    await link.script(REMOVE_STATE_SCRIPT, input, timeoutMs);
    await registry.release(claimOf("client", clientId), timeoutMs);
  }

  /** The persistent clients no live instance keeps: their instance is gone, and one of the others may take them. */
  async orphans(): Promise<string[]> {
    const { link, timeoutMs } = this.#options;
    const reply = await link.script(ORPHANS_SCRIPT, { keys: [keys.persisted], args: [keys.owner(claimOf("client", ""))] }, timeoutMs);
    return Array.isArray(reply) ? reply.map(String) : [];
  }
}
