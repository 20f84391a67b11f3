/**
 * When each tab was last brought to the front through the hub (tabs.open without background, tabs.activate), in
 * strictly increasing milliseconds, so "the tab in front" is the one with the latest time even within one millisecond.
 */
export class TabActivity {
  #at = new Map<string, number>();
  #last = 0;

  /** The tab came to the front now. */
  activated(tabId: string): void {
    this.#last = Math.max(Date.now(), this.#last + 1);
    this.#at.set(tabId, this.#last);
  }

  /** When the tab last came to the front, or null if it never did through the hub. */
  of(tabId: string): number | null {
    return this.#at.get(tabId) ?? null;
  }

  /** The tab went. */
  forget(tabId: string): void {
    this.#at.delete(tabId);
  }

  /** Chrome went: every tab with it. */
  clear(): void {
    this.#at.clear();
  }
}
