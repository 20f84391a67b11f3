import { existsSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { launchChromeWithPort, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { childrenWith, commandLine, isRunning, listeningPorts, processTree } from "../support/process-tree.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connectClient, requireChromium, startTestHub } from "../support/test-hub.js";

const SERIALIZATION_FAILED = -32005;
// The lowered cap on Chrome's messages for the hub of the oversized-answer tests (see chrome-launcher.ts).
const TEST_CAP_VARIABLE = "TABWIRE_TEST_CDP_MAX_MESSAGE_BYTES";
const TEST_CAP_BYTES = 1024 * 1024;

function profileOf(pid: number): string {
  const profile = commandLine(pid)
    .find((arg) => arg.startsWith("--user-data-dir="))
    ?.slice("--user-data-dir=".length);
  if (!profile) throw new Error(`process ${pid} has no --user-data-dir`);
  return profile;
}

describe("the embedded Chrome speaks CDP over a pipe (real hub, real Chromium)", function () {
  this.timeout(60_000);

  describe("the debugging port looked for and not found", () => {
    let hub: Hub;
    let client: TabwireClient;
    let withPort: PortChrome;
    before(async () => {
      requireChromium();
      [hub, withPort] = await Promise.all([startTestHub(), launchChromeWithPort(process.env.CHROME_PATH ?? "/usr/bin/chromium", [])]);
      client = await connectClient(hub);
    });
    after(async () => {
      await client?.close();
      await Promise.all([hub?.stop(), withPort?.kill()]);
    });

    it("no process of the hub's Chrome listens on a TCP port, and its profile has no DevToolsActivePort, while tabs work", async () => {
      const tab = await openTab(client, "data:text/html,<title>piped</title>");
      try {
        expect((await evaluate(client, tab.target, "document.title")).value).to.equal("piped");
        const pid = hub.services.browser.pid as number;
        const tree = processTree(pid);
        expect(tree.length, "Chrome's processes").to.be.above(1);
        expect(listeningPorts(tree)).to.deep.equal([]);
        expect(existsSync(path.join(profileOf(pid), "DevToolsActivePort"))).to.equal(false);
      } finally {
        await closeTab(client, tab.target);
      }
    });

    it("the same look finds the port of a Chrome started with one (as a user's Chrome for CDP_URL is)", () => {
      const port = Number(new URL(withPort.wsUrl).port);
      expect(listeningPorts(processTree(withPort.process.pid as number))).to.include(port);
      expect(existsSync(path.join(profileOf(withPort.process.pid as number), "DevToolsActivePort"))).to.equal(true);
    });
  });

  describe("a hub process that dies", () => {
    let child: ChildHub | undefined;
    after(async () => child?.stop());

    it("killed with SIGKILL takes its Chrome with it: the pipe closes and Chrome exits", async () => {
      child = await startChildHub({});
      const [chromePid] = childrenWith(child.pid, "tabwire-chrome-");
      expect(chromePid, "the hub's Chrome").to.be.a("number");
      const chromeTree = processTree(chromePid as number);
      process.kill(child.pid, "SIGKILL");
      await eventually(
        () => Promise.resolve(chromeTree.every((pid) => !isRunning(pid))),
        15_000,
        "every process of the dead hub's Chrome exiting",
      );
    });
  });

  describe("an answer over the cap", () => {
    let hub: Hub;
    let tenantA: TabwireClient;
    let tenantB: TabwireClient;
    before(async () => {
      process.env[TEST_CAP_VARIABLE] = String(TEST_CAP_BYTES);
      try {
        hub = await startTestHub();
      } finally {
        delete process.env[TEST_CAP_VARIABLE];
      }
      [tenantA, tenantB] = await Promise.all([connectClient(hub), connectClient(hub)]);
    });
    after(async () => {
      await Promise.all([tenantA?.close(), tenantB?.close()]);
      await hub?.stop();
    });

    it("is that call's SERIALIZATION_FAILED; another client's call in flight succeeds and every tab stays open", async () => {
      const a = await openTab(tenantA, "data:text/html,<title>a</title>", { clientId: "tenant-a" });
      const b = await openTab(tenantB, "data:text/html,<title>b</title>", { clientId: "tenant-b" });
      try {
        const waiting = evaluate(tenantB, b.target, {
          expression: "new Promise((resolve) => { window.release = resolve; })",
          timeoutMs: 20_000,
        });
        expect((await evaluate(tenantB, b.target, "typeof window.release")).value).to.equal("function");

        const refused = await failure(evaluate(tenantA, a.target, `"x".repeat(${TEST_CAP_BYTES + 1024})`));
        expect(refused.code).to.equal(SERIALIZATION_FAILED);
        expect(refused.message).to.equal(
          "Chrome's answer to Runtime.evaluate is larger than 1 MiB; ask for less: maxSize, a clip, a smaller scale",
        );

        await evaluate(tenantB, b.target, "window.release('still here'), 1");
        expect((await waiting).value).to.equal("still here");
        expect((await evaluate(tenantA, a.target, "document.title")).value).to.equal("a");
        const { tabs } = await tenantA.call("tabs.list", {});
        expect(tabs.map((t) => t.target)).to.include.members([a.target, b.target]);
        expect(hub.services.browser.restarts).to.equal(0);
      } finally {
        await closeTab(tenantA, a.target);
        await closeTab(tenantB, b.target);
      }
    });

    it("as an event (a console message) is dropped, and the tab's later messages arrive", async () => {
      const tab = await openTab(tenantA, "about:blank", { clientId: "tenant-a" });
      try {
        await tenantA.call("console.subscribe", { target: tab.target });
        const messages = collect(tenantA, "console.message", (all) => all.some((m) => m.text === "after"));
        await evaluate(tenantA, tab.target, `console.log("y".repeat(${TEST_CAP_BYTES + 1024})); console.log("after")`);
        const texts = (await messages).filter((m) => m.target === tab.target).map((m) => m.text);
        expect(texts).to.deep.equal(["after"]);
        expect(hub.services.browser.restarts).to.equal(0);
      } finally {
        await closeTab(tenantA, tab.target);
      }
    });
  });
});
