import type { RemoteTargets } from "../clients/cluster-view.js";
import { parseListing } from "./listing.js";
import type { ClusterRegistry } from "./registry.js";

interface Seen {
  /** Local clock time after which the instance's records are gone from Redis unless it refreshed them. */
  expiresAt: number;
  targets: RemoteTargets;
}

/**
 * The other instances' tabs and agents as last read from Redis. An instance that stops refreshing drops out of
 * it when its records expire in Redis, even before the next read.
 */
export class RemoteView {
  #registry: ClusterRegistry;
  #instances = new Map<string, Seen>();

  constructor(registry: ClusterRegistry) {
    this.#registry = registry;
  }

  /** Reads the other instances' listings again; rejects when Redis does not answer in time (the last read stays). */
  async refresh(timeoutMs: number): Promise<void> {
    const readAt = Date.now();
    const others = await this.#registry.readOthers(timeoutMs);
    this.#instances = new Map(
      others.map((other) => [other.id, { expiresAt: readAt + other.expiresInMs, targets: parseListing(other.listing) }]),
    );
  }

  /** The tabs and agents of the instances whose records have not expired. */
  current(): RemoteTargets {
    const now = Date.now();
    const current: RemoteTargets = { tabs: [], agents: [] };
    for (const seen of this.#instances.values()) {
      if (seen.expiresAt <= now) continue;
      current.tabs.push(...seen.targets.tabs);
      current.agents.push(...seen.targets.agents);
    }
    return current;
  }
}
