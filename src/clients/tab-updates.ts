/** The shortest time between two tab.updated of one tab: a page that sets its title in a loop sends ten a second. */
export const TAB_UPDATE_INTERVAL_MS = 100;

/** What tab.updated tells of a tab. */
interface Shown {
  url: string;
  title: string;
}

interface TabState {
  /** What the last tab.updated (or tab.opened) said. */
  sent: string;
  /** The newest values Chrome reported. */
  latest: Shown;
  /** Running while a tab.updated went out less than the interval ago; a change that came meanwhile goes out when it ends. */
  timer: NodeJS.Timeout | null;
}

/**
 * Bounds the news of tabs whose URL or title changed: a tab's first change goes out at once, later ones that come
 * within `intervalMs` of the last one sent go out together when it ends, with the latest values, and a change that
 * ends where the last news left the tab is none.
 */
export class TabUpdates {
  #intervalMs: number;
  #send: (tabId: string) => void;
  #tabs = new Map<string, TabState>();

  constructor(options: { intervalMs: number; send: (tabId: string) => void }) {
    this.#intervalMs = options.intervalMs;
    this.#send = options.send;
  }

  /** A tab appeared with these values (its tab.opened says them). */
  opened(tabId: string, shown: Shown): void {
    this.forget(tabId);
    this.#tabs.set(tabId, { sent: keyOf(shown), latest: shown, timer: null });
  }

  /** Chrome reported new values of a tab. */
  changed(tabId: string, shown: Shown): void {
    let state = this.#tabs.get(tabId);
    if (!state) this.#tabs.set(tabId, (state = { sent: "", latest: shown, timer: null }));
    state.latest = { url: shown.url, title: shown.title };
    if (!state.timer) this.#flush(tabId, state);
  }

  /** The tab went: nothing more is sent of it. */
  forget(tabId: string): void {
    const state = this.#tabs.get(tabId);
    if (state?.timer) clearTimeout(state.timer);
    this.#tabs.delete(tabId);
  }

  /** Chrome went: every tab with it. */
  clear(): void {
    for (const tabId of [...this.#tabs.keys()]) this.forget(tabId);
  }

  #flush(tabId: string, state: TabState): void {
    const key = keyOf(state.latest);
    if (key === state.sent) return;
    state.sent = key;
    state.timer = setTimeout(() => {
      state.timer = null;
      if (this.#tabs.get(tabId) === state) this.#flush(tabId, state);
    }, this.#intervalMs);
    state.timer.unref();
    this.#send(tabId);
  }
}

function keyOf(shown: Shown): string {
  return JSON.stringify([shown.url, shown.title]);
}
