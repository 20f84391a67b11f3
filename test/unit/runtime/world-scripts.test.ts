import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import type { FrameSession } from "../../../src/cdp/remote-frames.js";
import { DOM_AX_READER } from "../../../src/runtime/dom-ax-script.js";
import { ARM_CHANGES } from "../../../src/runtime/dom-change-script.js";
import { runWorldScript, type WorldScript } from "../../../src/runtime/world-scripts.js";

/** A frame whose world answers each expression with `answer(expression)`; what the hub sent is in `sent`. */
function fakeFrame(answer: (expression: string) => object): { session: FrameSession; sent: string[] } {
  const sent: string[] = [];
  const send = (_method: string, params: { expression: string }): Promise<object> => {
    sent.push(params.expression);
    return Promise.resolve(answer(params.expression));
  };
  return { session: { send } as unknown as FrameSession, sent };
}

const value = (v: unknown): object => ({ result: { type: typeof v, value: v } });

describe("runWorldScript: the hub's page scripts sent once per document", () => {
  let budget: Budget;
  beforeEach(() => (budget = new Budget(5_000)));
  afterEach(() => budget.dispose());
  const world = (contextId: number) => ({ frameId: "F1", contextId, budget, what: "the test's script" });
  const run = (session: FrameSession, contextId: number, call: { script: WorldScript; args?: (number | boolean)[] }) =>
    runWorldScript(session, world(contextId), { args: [1], ...call });

  it("sends a script's source with its first call on a document, then only its name", async () => {
    const { session, sent } = fakeFrame(() => value({ nodes: [] }));
    await run(session, 7, { script: "read", args: [false, 500] });
    await run(session, 7, { script: "read", args: [false, 499] });
    expect(sent[0]).to.include(DOM_AX_READER).and.include("return scripts.read(false, 500)");
    expect(sent[1]).to.equal("globalThis.__tabwire?.scripts?.read?.(false, 499)");
  });

  it("a second script on the same document comes without the reader, made there already", async () => {
    const { session, sent } = fakeFrame(() => value({ url: "u", title: "t" }));
    await run(session, 7, { script: "read" });
    await run(session, 7, { script: "arm", args: [20_000] });
    expect(sent[1]).to.include(ARM_CHANGES).and.not.include(DOM_AX_READER);
  });

  it("a new document (a new context of the world) gets the sources again", async () => {
    const { session, sent } = fakeFrame(() => value({ nodes: [] }));
    await run(session, 7, { script: "read" });
    await run(session, 8, { script: "read" });
    expect(sent[1]).to.include(DOM_AX_READER);
  });

  it("a world without them (undefined to the name) gets the sources in the same call, and its value is answered", async () => {
    let installed = true;
    const { session, sent } = fakeFrame((expression) =>
      expression.startsWith("globalThis") && !installed ? value(undefined) : value({ url: "u", title: "t" }),
    );
    await run(session, 7, { script: "arm" });
    installed = false;
    const answer = await run(session, 7, { script: "arm" });
    expect(answer.result.value).to.deep.equal({ url: "u", title: "t" });
    expect(sent).to.have.length(3);
    expect(sent[2]).to.include(DOM_AX_READER).and.include(ARM_CHANGES);
  });

  it("an exception thrown by a named script is answered as it came, the sources not sent again", async () => {
    const { session, sent } = fakeFrame((expression) =>
      expression.startsWith("globalThis") ? { result: { type: "object" }, exceptionDetails: { text: "Uncaught" } } : value({ nodes: [] }),
    );
    await run(session, 7, { script: "take" });
    const answer = await run(session, 7, { script: "take" });
    expect(answer.exceptionDetails?.text).to.equal("Uncaught");
    expect(sent).to.have.length(2);
  });
});
