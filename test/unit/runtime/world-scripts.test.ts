import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import { ProtocolError } from "../../../src/cdp/callback-registry.js";
import type { FrameSession } from "../../../src/cdp/remote-frames.js";
import { DOM_AX_READER } from "../../../src/runtime/dom-ax-script.js";
import { ARM_CHANGES } from "../../../src/runtime/dom-change-script.js";
import { inSnapshotWorld } from "../../../src/runtime/snapshot-world.js";
import { runWorldScript, type WorldScript } from "../../../src/runtime/world-scripts.js";

/**
 * A tab whose hub world answers each expression with `answer(expression, contextId)`; what the hub evaluated is in
 * `sent`, the worlds it made in `worldsMade`. `nextContext` is the number Chrome gives the next world; `navigate()`
 * tells the hub its main frame navigated; a context in `gone` answers as one whose document was replaced.
 */
function fakeTab(answer: (expression: string) => object) {
  const listeners = new Set<() => void>();
  const tab = { sent: [] as string[], worldsMade: 0, nextContext: 7, gone: new Set<number>(), session: {} as FrameSession };
  const send = (method: string, params: { expression: string; contextId: number }): Promise<object> => {
    if (method === "Page.createIsolatedWorld") {
      tab.worldsMade++;
      return Promise.resolve({ executionContextId: tab.nextContext });
    }
    if (tab.gone.has(params.contextId))
      return Promise.reject(new ProtocolError(method, { code: -32000, message: "Cannot find context with specified id" }));
    tab.sent.push(params.expression);
    return Promise.resolve(answer(params.expression));
  };
  const onNavigated = (listener: () => void): (() => boolean) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  tab.session = { send, onNavigated } as unknown as FrameSession;
  return Object.assign(tab, { navigate: () => listeners.forEach((listener) => listener()) });
}

const value = (v: unknown): object => ({ result: { type: typeof v, value: v } });

describe("runWorldScript: the hub's page scripts sent once per document", () => {
  let budget: Budget;
  beforeEach(() => (budget = new Budget(5_000)));
  afterEach(() => budget.dispose());
  const run = (session: FrameSession, call: { script: WorldScript; args?: (number | boolean)[] }) =>
    inSnapshotWorld(session, { frameId: "F1", budget }, (contextId) =>
      runWorldScript(session, { frameId: "F1", contextId, budget, what: "the test's script" }, { args: [1], ...call }),
    );

  it("sends a script's source with its first call on a document, then only its name", async () => {
    const tab = fakeTab(() => value({ nodes: [] }));
    await run(tab.session, { script: "read", args: [false, 500] });
    await run(tab.session, { script: "read", args: [false, 499] });
    expect(tab.sent[0]).to.include(DOM_AX_READER).and.include("return scripts.read(false, 500)");
    expect(tab.sent[1]).to.equal("globalThis.__tabwire?.scripts?.read?.(false, 499)");
  });

  it("a second script on the same document comes without the reader, made there already", async () => {
    const tab = fakeTab(() => value({ url: "u", title: "t" }));
    await run(tab.session, { script: "read" });
    await run(tab.session, { script: "arm", args: [20_000] });
    expect(tab.sent[1]).to.include(ARM_CHANGES).and.not.include(DOM_AX_READER);
  });

  it("a document replaced (its world's context gone) gets a new world and the sources again", async () => {
    const tab = fakeTab(() => value({ nodes: [] }));
    await run(tab.session, { script: "read" });
    tab.gone.add(7);
    tab.nextContext = 8;
    await run(tab.session, { script: "read" });
    expect(tab.worldsMade).to.equal(2);
    expect(tab.sent[1]).to.include(DOM_AX_READER);
  });

  it("after the tab navigates, a new world is made though Chrome gives its context the old world's number", async () => {
    // Chrome numbers contexts per renderer process: a page in another process may have the old world's number.
    const tab = fakeTab(() => value({ nodes: [] }));
    await run(tab.session, { script: "read" });
    tab.navigate();
    await run(tab.session, { script: "read" });
    expect(tab.worldsMade).to.equal(2);
    expect(tab.sent[1]).to.include(DOM_AX_READER);
  });

  it("a world without them (undefined to the name) gets the sources in the same call, and its value is answered", async () => {
    let made = true;
    const tab = fakeTab((expression) =>
      expression.startsWith("globalThis") && !made ? value(undefined) : value({ url: "u", title: "t" }),
    );
    await run(tab.session, { script: "arm" });
    made = false;
    const answer = await run(tab.session, { script: "arm" });
    expect(answer.result.value).to.deep.equal({ url: "u", title: "t" });
    expect(tab.sent).to.have.length(3);
    expect(tab.sent[2]).to.include(DOM_AX_READER).and.include(ARM_CHANGES);
  });

  it("an exception thrown by a named script is answered as it came, the sources not sent again", async () => {
    const tab = fakeTab((expression) =>
      expression.startsWith("globalThis") ? { result: { type: "object" }, exceptionDetails: { text: "Uncaught" } } : value({ nodes: [] }),
    );
    await run(tab.session, { script: "take" });
    const answer = await run(tab.session, { script: "take" });
    expect(answer.exceptionDetails?.text).to.equal("Uncaught");
    expect(tab.sent).to.have.length(2);
  });
});
