import { expect } from "chai";
import type { Browser } from "../../../src/cdp/browser.js";
import type { SessionPool } from "../../../src/cdp/session-pool.js";
import type { TabSession } from "../../../src/cdp/tab-session.js";
import { watchPageTitles } from "../../../src/runtime/page-titles.js";

/** A command the fake tab holds until the test lets it answer. */
interface Held {
  method: string;
  params: { contextId?: number; expression?: string };
  answer: (value: object) => void;
}

/**
 * A tab whose every command waits in `held` until answered; `navigate()` and `sameDocument()` tell the hub its main
 * frame went to a new document or moved within its own.
 */
function fakeTab() {
  const held: Held[] = [];
  const navigated = new Set<() => void>();
  const events = new Map<string, (event: unknown) => void>();
  const tab = {
    tabId: "T1",
    cdp: { isClosed: false, once: () => undefined },
    send: (method: string, params: Held["params"]) => new Promise<object>((answer) => held.push({ method, params, answer })),
    onNavigated: (listener: () => void) => {
      navigated.add(listener);
      return () => navigated.delete(listener);
    },
    listen: (event: string, listener: (event: unknown) => void) => {
      events.set(event, listener);
      return () => events.delete(event);
    },
  };
  return {
    tab: tab as unknown as TabSession,
    held,
    navigate: () => navigated.forEach((listener) => listener()),
    sameDocument: () => events.get("Page.navigatedWithinDocument")?.({ frameId: "T1" }),
  };
}

/** Lets the hub's awaits run on. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Answers the oldest held command of `method` (in context `contextId` when given) with `value`. */
function answer(held: Held[], command: { method: string; contextId?: number }, value: object = {}): void {
  const { method, contextId } = command;
  const index = held.findIndex((each) => each.method === method && (contextId === undefined || each.params.contextId === contextId));
  const [found] = held.splice(index, 1);
  if (index < 0 || !found) throw new Error(`no ${method} is held`);
  found.answer(value);
}

describe("page titles: the hub's title watch asks the world of the page's current document", () => {
  it("an install a navigation overtook keeps nothing: the watch asks the new document's world, not the old number", async () => {
    const { tab, held, navigate, sameDocument } = fakeTab();
    let attach: (tab: TabSession) => Promise<void> = async () => undefined;
    const pool = { onAttach: (step: typeof attach) => (attach = step) } as unknown as SessionPool;
    const browser = { onPageGone: () => undefined, on: () => undefined, noteTitle: () => undefined } as unknown as Browser;
    watchPageTitles(pool, browser);
    const watching = attach(tab);
    answer(held, { method: "Runtime.addBinding" });
    await settle();
    // The first document's world is made as context 5; its script is still starting when the page navigates.
    answer(held, { method: "Page.createIsolatedWorld" }, { executionContextId: 5 });
    await settle();
    navigate();
    answer(held, { method: "Page.createIsolatedWorld" }, { executionContextId: 7 });
    await settle();
    // The new document's script starts first, then the old one's answers.
    answer(held, { method: "Runtime.evaluate", contextId: 7 });
    await settle();
    answer(held, { method: "Runtime.evaluate", contextId: 5 });
    await watching;
    sameDocument();
    const asked = held.filter((command) => command.params.expression === "tabwireTitleAgain()");
    expect(asked.map((command) => command.params.contextId)).to.deep.equal([7]);
  });
});
