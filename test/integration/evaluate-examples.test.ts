import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

interface Example {
  name: string;
  params: { name: string; value: unknown }[];
  result: { value: Record<string, unknown> };
}

const DOCUMENT = new URL("../../../protocol/tabwire.openrpc.json", import.meta.url);
const EXAMPLES = (JSON.parse(readFileSync(DOCUMENT, "utf8")) as { methods: { name: string; examples: Example[] }[] }).methods.find(
  (method) => method.name === "evaluate",
)!.examples;

/** A result with each console message's timestamp replaced by its type (the document's is an example's, the page's is now). */
function withoutTimestamps(result: Record<string, unknown>): Record<string, unknown> {
  const console = result.console as { timestamp: unknown }[] | undefined;
  if (!console) return result;
  return { ...result, console: console.map((message) => ({ ...message, timestamp: typeof message.timestamp })) };
}

describe("evaluate: every example of the OpenRPC document, as a user runs it (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let site: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab;

  before(async () => {
    hub = await sharedHub();
    site = await startFixtureServer();
    client = await connectClient(hub);
    // The document's examples run on a page titled "Example Domain" served over HTTP.
    tab = await openTab(client, site.url("example.html"));
  });
  after(async () => {
    await closeTab(client, tab.target);
    await client.close();
    await site.close();
  });

  for (const example of EXAMPLES) {
    it(`${example.name}: ${JSON.stringify(example.params.find((param) => param.name === "expression")?.value)}`, async () => {
      const params = Object.fromEntries(example.params.map(({ name, value }) => [name, name === "target" ? tab.target : value]));
      const result = (await client.call("evaluate", params as never)) as unknown as Record<string, unknown>;
      expect(withoutTimestamps(result)).to.deep.equal(withoutTimestamps(example.result.value));
    });
  }
});
