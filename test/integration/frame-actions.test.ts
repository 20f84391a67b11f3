import { expect } from "chai";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

describe("refs into iframes: a snapshot reaches into the frame and a click lands there (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let host: FixtureServer;
  let client: TabwireClient;

  before(async () => {
    hub = await sharedHub();
    host = await startFixtureServer();
    client = await connectClient(hub);
  });
  after(async () => {
    await client.close();
    await host.close();
  });

  it("a button in a same-origin iframe gets a ref under the Iframe node, and a trusted click on it lands", async () => {
    const tab = await openTab(client, host.url(`frame-host.html?inner=${encodeURIComponent(host.url("frame-button.html"))}`));
    try {
      await evaluate(client, tab.target, "frameReady");
      const { text } = await client.call("snapshot", { target: tab.target });
      expect(text).to.match(/- Iframe[^\n]*\n\s+- RootWebArea "Frame Button"/);
      const ref = /button "Inside frame" \[ref=(e\d+)\]/.exec(text)?.[1];
      expect(ref, text).to.be.a("string");
      const marked = host.waitForMark("frame-click-true", 10_000);
      await client.click({ target: tab.target, ref: ref as string });
      await marked;
    } finally {
      await closeTab(client, tab.target);
    }
  });
});
