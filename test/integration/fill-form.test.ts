import { expect } from "chai";
import { TabwireError, type TabwireClient } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

/** The error's name in the protocol's table (TIMEOUT, INVALID_PARAMS...). */
const nameOf = (error: TabwireError): string | undefined => Object.entries(ErrorCode).find(([, code]) => code === error.code)?.[0];

// The form's fields as the page holds them, and the fields whose change event fired.
const STATE =
  "[document.getElementById('name').value, document.getElementById('bio').value, document.getElementById('terms').checked, document.getElementById('plan').value, changes]";
const UNTOUCHED = ["", "", false, "free", []];

describe("fillForm: the whole form is checked before any field is filled (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;
  const read = async <T>(expression: string): Promise<T> => (await evaluate(client, tab.target, expression)).value as T;
  const failureOf = async (call: Promise<unknown>): Promise<TabwireError> => {
    const error = await call.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.instanceOf(TabwireError);
    return error as TabwireError;
  };

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  beforeEach(async () => {
    tab = await openTab(client, fixtures.url("actions.html"));
  });
  afterEach(async () => closeTab(client, tab.target));
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  it("a field that cannot take its value, last in the list, is INVALID_PARAMS naming it, and the fields before it are untouched", async () => {
    const badFields: [string, string | boolean, string][] = [
      ["#plan", "gold", 'no option of the select has the value or label "gold"'],
      ["#terms", "yes", 'a checkbox takes true or false, not "yes"'],
      ["#bio", true, "a text field takes a string, not true"],
      ["#btn", "x", "a button element takes no value"],
    ];
    for (const [selector, value, why] of badFields) {
      const fields = [
        { selector: "#name", value: "Ada" },
        { selector: "#bio", value: "Engines" },
        { selector, value },
      ];
      const refused = await failureOf(client.call("fillForm", { target: tab.target, fields }));
      expect([nameOf(refused), refused.message, refused.data], selector).to.deep.equal([
        "INVALID_PARAMS",
        `invalid params for fillForm: field 2: ${why}; nothing was filled`,
        { errors: [{ path: "/fields/2", message: why }], field: 2 },
      ]);
      expect(await read<unknown[]>(STATE), selector).to.deep.equal(UNTOUCHED);
    }
  });

  it("a field that is not on the page, last in the list, fails the call naming it, and the fields before it are untouched", async () => {
    const fields = [
      { selector: "#name", value: "Ada" },
      { selector: "#terms", value: true },
      { selector: "#nowhere", value: "x" },
    ];
    const refused = await failureOf(client.call("fillForm", { target: tab.target, fields, timeoutMs: 1_000 }));
    expect(refused.message).to.match(/^field 2: /);
    expect((refused.data as { field?: number }).field).to.equal(2);
    expect(await read<unknown[]>(STATE)).to.deep.equal(UNTOUCHED);
  });

  it('"true" and "false" set a checkbox, as true and false do', async () => {
    const fields = [
      { selector: "#name", value: "Ada" },
      { selector: "#terms", value: "true" },
      { selector: "#plan", value: "Pro" },
    ];
    expect(await client.call("fillForm", { target: tab.target, fields })).to.include({ ok: true });
    expect(await read<unknown[]>(STATE)).to.deep.equal(["Ada", "", true, "pro", ["name", "terms", "plan"]]);
    await client.call("fillForm", { target: tab.target, fields: [{ selector: "#terms", value: "false" }] });
    expect(await read<boolean>("document.getElementById('terms').checked")).to.equal(false);
  });
});
