import type { Browser, PageInfo } from "../cdp/browser.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { log } from "../log.js";

const WORLD_NAME = "tabwire-title";
const BINDING = "tabwireTitle";
// What Chrome keeps of a title (content::kMaxTitleChars): a longer one is no news.
const TITLE_MAX_CHARS = 4096;
const COMMAND_TIMEOUT_MS = 5_000;

/**
 * Runs in the hub's own world of the top document (page scripts cannot see it): tells the hub the title at once,
 * then at each change, at most once per 100 ms (the newest last); `tabwireTitleAgain()` tells it again. The world
 * outlives the hub's session (the pool lets sessions go and attaches again): run again, it tells the title to the new
 * session, whose record of the tab starts without one. Nothing it does may throw: the exception would reach the tab's
 * console subscribers.
 */
const WATCH_TITLE = `(() => {
  if (globalThis.tabwireTitleAgain) return globalThis.tabwireTitleAgain();
  let last = null, timer = 0, due = false;
  const report = (again) => {
    try {
      const title = String(document.title).slice(0, ${TITLE_MAX_CHARS});
      if (title === last && !again) return;
      last = title;
      globalThis.${BINDING}(title);
    } catch {}
  };
  const changed = () => {
    if (timer) { due = true; return; }
    report(false);
    timer = setTimeout(() => { timer = 0; if (due) { due = false; changed(); } }, 100);
  };
  const observer = new MutationObserver(changed);
  const watch = () => {
    observer.disconnect();
    observer.observe(document.head || document, { childList: true, subtree: true, characterData: true });
  };
  watch();
  document.addEventListener("DOMContentLoaded", () => { watch(); changed(); });
  addEventListener("load", changed);
  globalThis.tabwireTitleAgain = () => report(true);
  report(true);
})()`;

/**
 * What the hub knows of one page's title: the last one reported, the context of its world (null while none is known),
 * and how many installs of the watch began (the latest alone keeps its context).
 */
interface TitleState {
  title: string | null;
  contextId: number | null;
  installs: number;
  tab: TabSession;
}

/** Keeps the hub's record of every page's title current, for tabs.list and tab.updated (see PageTitles). */
export function watchPageTitles(pool: SessionPool, browser: Browser): void {
  new PageTitles(pool, browser);
}

/**
 * Keeps the hub's record of every page's title current. Chrome announces a page's new URL (Target.targetInfoChanged)
 * but not a new `document.title`, so a script in a world of the hub's own tells it, through a binding, in each tab the
 * pool holds a session to; where Chrome's next word on a page disagrees, the page is asked again.
 */
class PageTitles {
  #browser: Browser;
  /** The title each page last reported, and the context of its world (null while none is known). */
  #tabs = new Map<string, TitleState>();

  constructor(pool: SessionPool, browser: Browser) {
    this.#browser = browser;
    pool.onAttach((tab) => this.#watch(tab));
    browser.onPageGone((tabId) => this.#tabs.delete(tabId));
    browser.on("disconnected", () => this.#tabs.clear());
    browser.on("pageChanged", (page) => this.#onPageChanged(page));
  }

  async #watch(tab: TabSession): Promise<void> {
    if (tab.cdp.isClosed) return;
    const state: TitleState = { title: null, contextId: null, installs: 0, tab };
    this.#tabs.set(tab.tabId, state);
    // The record goes with its session: a tab closed while its session attached is gone before it was recorded, and
    // would hold the session for the life of the hub (1,000 tab cycles kept 90 of them).
    tab.cdp.once("closed", () => {
      if (this.#tabs.get(tab.tabId) === state) this.#tabs.delete(tab.tabId);
    });
    tab.listen("Runtime.bindingCalled", (event) => {
      if (event.name === BINDING && this.#tabs.get(tab.tabId) === state) this.#reported(tab.tabId, event.payload);
    });
    tab.onNavigated(() => {
      state.contextId = null;
      void this.#install(tab, state);
    });
    tab.listen("Page.navigatedWithinDocument", (event) => {
      if (event.frameId === tab.tabId) this.#askAgain(state);
    });
    await tab.send("Runtime.addBinding", { name: BINDING, executionContextName: WORLD_NAME }, { timeoutMs: COMMAND_TIMEOUT_MS });
    await this.#install(tab, state);
  }

  /**
   * Makes the world in the tab's top document and starts the script there; a navigation in between installs again,
   * and the install it overtook keeps nothing: Chrome numbers contexts per renderer process, so the old document's
   * number may name another context of the new one.
   */
  async #install(tab: TabSession, state: TitleState): Promise<void> {
    const install = ++state.installs;
    try {
      const options = { timeoutMs: COMMAND_TIMEOUT_MS };
      const { executionContextId } = await tab.send("Page.createIsolatedWorld", { frameId: tab.tabId, worldName: WORLD_NAME }, options);
      await tab.send("Runtime.evaluate", { expression: WATCH_TITLE, contextId: executionContextId }, options);
      if (install === state.installs) state.contextId = executionContextId;
    } catch (error) {
      log.debug("cannot watch a page's title", { tabId: tab.tabId, error: (error as Error).message });
    }
  }

  #reported(tabId: string, payload: string): void {
    const state = this.#tabs.get(tabId);
    if (!state) return;
    // Without a title Chrome shows the URL: its own word is asked for.
    state.title = payload === "" ? null : payload;
    if (state.title !== null) return this.#browser.noteTitle(tabId, state.title);
    void this.#askChrome(tabId);
  }

  async #askChrome(tabId: string): Promise<void> {
    try {
      const { targetInfo } = await this.#browser
        .connection()
        .send("Target.getTargetInfo", { targetId: tabId }, { timeoutMs: COMMAND_TIMEOUT_MS });
      this.#browser.notePage(targetInfo);
    } catch {
      // The page or Chrome went: there is no title to keep.
    }
  }

  // Chrome's news may carry the title from before the page's latest change (its announcements and the page's come
  // by different ways): the page has the last word.
  #onPageChanged(page: PageInfo): void {
    const state = this.#tabs.get(page.tabId);
    if (state && state.title !== null && state.title !== page.title) this.#askAgain(state);
  }

  #askAgain(state: TitleState): void {
    if (state.contextId === null) return;
    const options = { timeoutMs: COMMAND_TIMEOUT_MS };
    state.tab.send("Runtime.evaluate", { expression: "tabwireTitleAgain()", contextId: state.contextId }, options).catch(() => {});
  }
}
