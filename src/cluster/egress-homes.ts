import type { EgressHome } from "../egress/egress-service.js";
import { HubError } from "../errors.js";
import { log } from "../log.js";
import { claimOf } from "./claims.js";
import { parseListing } from "./listing.js";
import type { ClusterRegistry } from "./registry.js";

/**
 * Where each client's own egress policy lives in a cluster: on the instance that took it (clients.configure, a
 * persistent client's state put back, a /cdp connection's new context), which claims `egress:<clientId>` beside its
 * tabs and refreshes the claim with them. The client's browser context is made only there, behind its proxy, and
 * the cluster sends the calls on the client's context there (CallRouting); every other instance refuses to make one.
 */
export class EgressHomes implements EgressHome {
  #registry: ClusterRegistry;
  #timeoutMs: () => number;
  // The clients whose claim this instance took, until it releases it.
  #taken = new Set<string>();
  #contested = new Set<string>();

  constructor(registry: ClusterRegistry, timeoutMs: () => number) {
    this.#registry = registry;
    this.#timeoutMs = timeoutMs;
  }

  /** Whether this instance holds the client's own policy. */
  holds(clientId: string): boolean {
    return this.#registry.epochOf(claimOf("egress", clientId)) !== undefined;
  }

  async take(clientId: string): Promise<void> {
    if (this.holds(clientId)) return;
    const elsewhere = await this.#tabsElsewhere(clientId);
    if (elsewhere.length > 0) {
      const where = [...new Set(elsewhere)].join(", ");
      throw new HubError(
        "INVALID_PARAMS",
        `client ${clientId} has ${elsewhere.length} tab(s) on other hub instances of the cluster (${where}), opened without an egress proxy: close them (tabs.close) first, then set the policy`,
      );
    }
    if (!(await this.#claim(clientId)))
      throw new HubError("BROWSER_UNAVAILABLE", `another hub instance took client ${clientId}'s egress policy at the same moment; retry`);
  }

  async elsewhere(clientId: string): Promise<string | null> {
    const owner = await this.#registry.ownerOf(claimOf("egress", clientId), this.#timeoutMs());
    return owner === this.#registry.instanceId ? null : owner;
  }

  release(clientId: string): void {
    if (!this.#taken.delete(clientId)) return;
    this.#registry
      .release(claimOf("egress", clientId), this.#timeoutMs())
      .catch((error: Error) => log.warn("cluster: cannot release a client's egress claim", { clientId, error: error.message }));
  }

  /**
   * Adds the claims of the clients whose own policy this instance holds to those it refreshes; a policy this instance
   * has without the claim (put back with a persistent client, or set by a /cdp connection) is claimed first.
   */
  refresh(owned: Set<string>, clientIds: readonly string[]): void {
    for (const clientId of this.#contested) if (!clientIds.includes(clientId)) this.#contested.delete(clientId);
    for (const clientId of clientIds) {
      const claim = claimOf("egress", clientId);
      if (this.#registry.epochOf(claim) !== undefined) owned.add(claim);
      else
        void this.#claim(clientId).then(
          (taken) => this.#noteContest(clientId, taken),
          () => undefined,
        );
    }
  }

  // Said once per client, not at every refresh: another instance holds the policy of a client this one has one for.
  #noteContest(clientId: string, taken: boolean): void {
    if (taken) this.#contested.delete(clientId);
    else if (!this.#contested.has(clientId)) {
      this.#contested.add(clientId);
      log.warn("cluster: another instance holds the egress policy of a client this one has one for", { clientId });
    }
  }

  async #claim(clientId: string): Promise<boolean> {
    const taken = await this.#registry.claimIfFree(claimOf("egress", clientId), this.#timeoutMs());
    if (taken) this.#taken.add(clientId);
    return taken;
  }

  async #tabsElsewhere(clientId: string): Promise<string[]> {
    const others = await this.#registry.readOthers(this.#timeoutMs());
    return others.flatMap(({ id, listing }) =>
      parseListing(listing)
        .tabs.filter((tab) => tab.clientId === clientId)
        .map(() => id),
    );
  }
}
