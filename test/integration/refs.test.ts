import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { launchChromeWithPort, resolveChromePath, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import type { TabwireClient, TabwireError } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { call } from "../support/mcp-tools.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connect, connectClient, startTestHub } from "../support/test-hub.js";

const TOKEN = "refs-token-alpha";

/** The ref a snapshot's text gives the element with this role and name. */
function refIn(text: string, role: string, name: string): string {
  const ref = new RegExp(`- ${role} "${name}" \\[ref=(e\\d+)\\]`).exec(text)?.[1];
  expect(ref, text).to.be.a("string");
  return ref as string;
}

describe("refs name elements, not snapshots: another connection or a person watching the tab never breaks an agent's refs (real hub, real Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let agent: TabwireClient;

  before(async () => {
    hub = await startTestHub({ HUB_TOKENS: `${TOKEN}:alpha`, AUTH_KEY: "refs-agent-key" });
    fixtures = await startFixtureServer();
    agent = await connectClient(hub, { token: TOKEN });
  });
  after(async () => {
    await agent?.close();
    await fixtures?.close();
    await hub?.stop();
  });

  const status = async (target: string): Promise<unknown> =>
    (await evaluate(agent, target, "document.querySelector('#status').textContent")).value;

  for (const [mine, theirs] of [
    ["chrome", "chrome"],
    ["dom", "dom"],
    ["dom", "chrome"],
    ["chrome", "dom"],
  ] as const) {
    it(`a snapshot by another connection (source ${theirs}) between the agent's (source ${mine}) and its click: the click works, and each element has the same ref in both`, async () => {
      const { target } = await openTab(agent, fixtures.url("form.html"));
      try {
        const own = await agent.call("snapshot", { target, source: mine });
        const other = await connect(hub, { token: TOKEN });
        const seen = (await other.call("snapshot", { target, source: theirs })) as { text: string };
        await other.close();
        for (const [role, name] of [
          ["button", "Submit"],
          ["textbox", "Email"],
        ] as const)
          expect(refIn(seen.text, role, name), `${role} ${name}`).to.equal(refIn(own.text, role, name));
        expect(await agent.click({ target, ref: refIn(own.text, "button", "Submit") })).to.include({ ok: true });
        expect(await status(target)).to.equal("submitted ada@example.com");
        // The agent's next snapshot still names the button as its first did.
        expect(refIn((await agent.call("snapshot", { target, source: mine })).text, "button", "Submit")).to.equal(
          refIn(own.text, "button", "Submit"),
        );
      } finally {
        await closeTab(agent, target);
      }
    });
  }

  it("a snapshot through the MCP front (a session of the same client) between the agent's snapshot and its click: the click works, the refs are the same", async () => {
    const { target } = await openTab(agent, fixtures.url("form.html"));
    const mcp = new Client({ name: "tabwire-refs-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp?clientId=alpha`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    try {
      const own = await agent.call("snapshot", { target });
      await mcp.connect(transport);
      const seen = (await call(mcp, "snapshot", { target })).content[0]?.text ?? "";
      expect(refIn(seen, "button", "Submit")).to.equal(refIn(own.text, "button", "Submit"));
      expect(refIn(seen, "textbox", "Email")).to.equal(refIn(own.text, "textbox", "Email"));
      expect(await agent.click({ target, ref: refIn(own.text, "button", "Submit") })).to.include({ ok: true });
      expect(await status(target)).to.equal("submitted ada@example.com");
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await mcp.close();
      await closeTab(agent, target);
    }
  });

  it("a ref whose element was removed is NODE_NOT_FOUND saying it is gone; one never handed out says so; the others still work", async () => {
    const { target } = await openTab(agent, fixtures.url("form.html"));
    try {
      const { text } = await agent.call("snapshot", { target });
      const submit = refIn(text, "button", "Submit");
      await evaluate(agent, target, "document.querySelector('#submit').remove()");
      await agent.call("snapshot", { target, source: "dom" });
      const gone = (await agent.click({ target, ref: submit }).catch((error: TabwireError) => error)) as TabwireError;
      expect(gone).to.include({ code: ErrorCode.NODE_NOT_FOUND });
      expect(gone.message).to.match(/gone from its page/);
      const never = (await agent.click({ target, ref: "e999999" }).catch((error: TabwireError) => error)) as TabwireError;
      expect(never).to.include({ code: ErrorCode.NODE_NOT_FOUND });
      expect(never.message).to.match(/never handed out/);
      await agent.fill({ target, ref: refIn(text, "textbox", "Email"), value: "grace@example.com" });
      expect((await evaluate(agent, target, "document.querySelector('#email').value")).value).to.equal("grace@example.com");
    } finally {
      await closeTab(agent, target);
    }
  });

  it("an element in a cross-site iframe keeps its ref across snapshots of either source, and its click lands", async () => {
    const inner = fixtures.url("frame-button.html").replace("127.0.0.1", "localhost");
    const { target } = await openTab(agent, fixtures.url(`frame-host.html?inner=${encodeURIComponent(inner)}`));
    try {
      await evaluate(agent, target, "frameReady");
      const own = await agent.call("snapshot", { target, source: "dom" });
      const other = await connect(hub, { token: TOKEN });
      const seen = (await other.call("snapshot", { target, source: "chrome" })) as { text: string };
      await other.close();
      const button = refIn(own.text, "button", "Inside frame");
      expect(refIn(seen.text, "button", "Inside frame")).to.equal(button);
      const marked = fixtures.waitForMark("frame-click-true", 10_000);
      await agent.click({ target, ref: button });
      await marked;
    } finally {
      await closeTab(agent, target);
    }
  });

  it("a tab whose CDP session the hub recycled (MAX_SESSIONS) numbers its refs on: an old ref is NODE_NOT_FOUND, never another element", async () => {
    const small = await startTestHub({ MAX_SESSIONS: "1" });
    const client = await connect(small);
    try {
      const first = await openTab(client, fixtures.url("form.html"));
      const { text } = (await client.call("snapshot", { target: first.target })) as { text: string };
      const numbers = (snapshot: string): number[] => [...snapshot.matchAll(/\[ref=e(\d+)\]/g)].map((match) => Number(match[1]));
      // A second tab in use takes the only session: the first tab's is recycled, and its refs forgotten.
      const second = await openTab(client, fixtures.url("form.html"));
      await client.call("snapshot", { target: second.target });
      await evaluate(client, first.target, "document.querySelector('main').prepend(document.createElement('button'))");
      const again = (await client.call("snapshot", { target: first.target })) as { text: string };
      expect(Math.min(...numbers(again.text))).to.be.above(Math.max(...numbers(text)));
      const old = (await client
        .call("click", { target: first.target, ref: refIn(text, "button", "Submit") })
        .catch((error: unknown) => error)) as {
        code: number;
        message: string;
      };
      expect(old.code).to.equal(ErrorCode.NODE_NOT_FOUND);
      expect(old.message).to.match(/re-attached/);
      expect((await evaluate(client, first.target, "document.querySelector('#status').textContent")).value).to.equal("idle");
    } finally {
      await client.close();
      await small.stop();
    }
  });

  describe("the dashboard's tab view, driven by puppeteer-core, takes its snapshot between the agent's and its click", () => {
    let chrome: PortChrome;
    let browser: Browser;
    let page: Page;

    before(async () => {
      chrome = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--headless=new"]);
      browser = await puppeteer.connect({ browserWSEndpoint: chrome.wsUrl, defaultViewport: { width: 1280, height: 900 } });
      page = await browser.newPage();
      await page.goto(`${hub.url.replace(/^ws/, "http")}/ui`);
      await page.waitForSelector("#token");
      await page.type("#token", TOKEN);
      await page.click("#sign-in");
      await page.waitForSelector("#stats");
    });
    after(async () => {
      await browser?.disconnect();
      await chrome?.kill();
    });

    for (const source of ["dom", "chrome"] as const) {
      it(`the agent's click by ref works after a person opened the tab (agent's source ${source}), and the dashboard shows the agent's refs`, async () => {
        const { target } = await openTab(agent, fixtures.url("form.html"));
        try {
          const own = await agent.call("snapshot", { target, source });
          const submit = refIn(own.text, "button", "Submit");
          await page.goto(`${hub.url.replace(/^ws/, "http")}/ui#/tab/${encodeURIComponent(target)}`);
          await page.waitForFunction(`document.querySelector("pre#snapshot")?.dataset.snapshotId`);
          const shown = await page.$eval("pre#snapshot", (element) => element.textContent ?? "");
          expect(refIn(shown, "button", "Submit")).to.equal(submit);
          expect(refIn(shown, "textbox", "Email")).to.equal(refIn(own.text, "textbox", "Email"));
          expect(await agent.click({ target, ref: submit })).to.include({ ok: true });
          expect(await status(target)).to.equal("submitted ada@example.com");
          // A second look by the person (the panel's button) changes nothing for the agent either.
          const first = await page.$eval("pre#snapshot", (element) => element.getAttribute("data-snapshot-id"));
          await page.click("#snapshot-refresh");
          await page.waitForFunction(`document.querySelector("pre#snapshot")?.dataset.snapshotId !== ${JSON.stringify(first)}`);
          await agent.fill({ target, ref: refIn(own.text, "textbox", "Email"), value: "grace@example.com" });
          await agent.click({ target, ref: submit });
          expect(await status(target)).to.equal("submitted grace@example.com");
        } finally {
          await page.goto(`${hub.url.replace(/^ws/, "http")}/ui#/`);
          await closeTab(agent, target);
        }
      });
    }
  });
});
