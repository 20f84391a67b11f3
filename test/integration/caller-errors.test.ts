import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { rpcFailure, type TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

describe("errors in the caller's terms over /rpc: syntax errors of the caller's code, patterns in words (real hub)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let client: TestRpcClient;
  let tab: OpenedTab;

  before(async () => {
    hub = await sharedHub();
    client = await connect(hub);
    tab = await openTab(client);
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
  });

  const syntaxError = async (expression: string): Promise<{ message: string; data: Record<string, unknown> }> => {
    const error = await rpcFailure(client.call("evaluate", { target: tab.target, expression }));
    expect(error.code, expression).to.equal(-32000);
    return { message: error.message, data: error.data as Record<string, unknown> };
  };

  it("unfinished code is 'Unexpected end of input' where the caller's code ends, not the hub's closing brace", async () => {
    for (const [code, line, column] of [
      ["1+", 0, 2],
      ["  foo(", 0, 6],
      ["x = 1 +\n  2 +", 1, 5],
      ["await 1;\n1+", 1, 2],
    ] as const) {
      const { message, data } = await syntaxError(code);
      expect(message, code).to.equal("SyntaxError: Unexpected end of input");
      expect(data, code).to.include({ name: "SyntaxError", message: "Unexpected end of input", lineNumber: line, columnNumber: column });
    }
  });

  it("an error inside the code keeps the parser's own message, at its place in the caller's code", async () => {
    const inside = await syntaxError("let a = 1;\nlet b = (;");
    expect(inside.message).to.equal("SyntaxError: Unexpected token ';'");
    expect(inside.data).to.include({ lineNumber: 1, columnNumber: 9 });
    const stray = await syntaxError("1}");
    expect(stray.message).to.equal("SyntaxError: Unexpected token '}'");
    expect(stray.data).to.include({ lineNumber: 0, columnNumber: 1 });
    // Code that parses is run once, as before: the check runs only for code that did not.
    const ran = await client.call<{ value: number }>("evaluate", {
      target: tab.target,
      expression: "globalThis.runs = (globalThis.runs ?? 0) + 1",
    });
    expect(ran.value).to.equal(1);
  });

  it("a malformed target is INVALID_PARAMS saying what a target looks like, not the schema's regular expression", async () => {
    const error = await rpcFailure(client.call("snapshot", { target: "bogus" }));
    expect(error.code).to.equal(-32602);
    const words = "must be clientId:tabId, as tabs.list names it (e.g. local:8F3A5C0E9B2D4A61C7E0F1D2B3A49586)";
    expect(error.message).to.equal(`invalid params for snapshot: /target ${words}`);
    expect(error.data).to.deep.equal({ errors: [{ path: "/target", message: words }] });
    const locale = await rpcFailure(client.call("emulate", { target: tab.target, locale: "en GB" }));
    expect(locale.message).to.equal("invalid params for emulate: /locale may hold letters, digits, '_' and '-' only (as en-GB)");
  });
});
