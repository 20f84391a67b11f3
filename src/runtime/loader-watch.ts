import type { TabSession } from "../cdp/tab-session.js";
import type { EventName, EventParams } from "../cdp/connection.js";

/**
 * The loaderIds a tab event names, recorded from before a navigation starts (a fast page can get there before
 * Page.navigate answers), and a wait for one of them. Stop it when done: it holds a listener on the tab.
 */
export class LoaderWatch<E extends EventName> {
  #seen = new Set<string>();
  #waiting = new Map<string, () => void>();
  #stop: () => void;

  constructor(tab: TabSession, event: E, loaderOf: (params: EventParams<E>) => string | null) {
    this.#stop = tab.listen(event, (params) => {
      const loaderId = loaderOf(params);
      if (loaderId === null) return;
      this.#seen.add(loaderId);
      this.#waiting.get(loaderId)?.();
    });
  }

  /** Resolves once the event named `loaderId` (at once if it already has). */
  reached(loaderId: string): Promise<void> {
    if (this.#seen.has(loaderId)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.set(loaderId, resolve));
  }

  stop(): void {
    this.#stop();
    this.#waiting.clear();
  }
}
