import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { launchChromeWithPort, resolveChromePath, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

// Two tokens of client alpha, so the timeline tells the script's calls (token-0) from the dashboard's (token-1).
const SCRIPT_TOKEN = "ui-timeline-script-token";
const VIEW_TOKEN = "ui-timeline-view-token";
const BETA_TOKEN = "ui-timeline-beta-token";
const HUB_ENV = {
  HUB_TOKENS: `${SCRIPT_TOKEN}:alpha,${VIEW_TOKEN}:alpha,${BETA_TOKEN}:beta`,
  AUTH_KEY: "ui-timeline-agent-key",
  TIMELINE_PICTURES: "on",
};
const SCRIPT_CALLER = "token-0";
const SCRIPT_METHODS = ["navigate", "fill", "click", "wait.for", "evaluate"];
const HTML_MESSAGE = `<img src="x" onerror="window.__timelineInjected = 1"><b id="injected">bold</b>`;
const TARGET_NOT_FOUND = -32002;
const WAIT = { timeout: 15_000 };

interface Picture {
  data: string;
  width: number;
  height: number;
}
interface Entry {
  seq: number;
  kind: string;
  summary: string;
  method?: string;
  caller?: { kind: string; who: string };
  before?: Picture;
  after?: Picture;
}
/** A row of the dashboard's timeline as the page shows it. */
interface Row {
  seq: number;
  kind: string;
  method: string | null;
  caller: string | null;
  summary: string;
  hidden: boolean;
}

/**
 * Runs in the dashboard's page before its scripts: keeps the methods of the JSON-RPC calls it sends, and the error
 * codes of the answers to its timeline.get calls.
 */
const WIRE_LOG = `(() => {
  window.tabwireSent = [];
  window.tabwireTimelineErrors = [];
  const asked = new Map();
  const Native = WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        try {
          const frame = JSON.parse(event.data);
          if (frame.error && asked.get(frame.id) === "timeline.get") window.tabwireTimelineErrors.push(frame.error.code);
        } catch {}
      });
    }
    send(data) {
      try {
        const frame = JSON.parse(data);
        window.tabwireSent.push(frame.method);
        asked.set(frame.id, frame.method);
      } catch {}
      return super.send(data);
    }
  };
})()`;

/** A picture as the page's img src. */
function src(picture: Picture | undefined): string {
  if (!picture) throw new Error("the entry has no picture");
  return `data:image/jpeg;base64,${picture.data}`;
}

/** The rows of the page's timeline, in the page's order. */
function rows(page: Page): Promise<Row[]> {
  return page.$$eval("#timeline li.timeline-row", (items) =>
    items.map((item) => ({
      seq: Number(item.getAttribute("data-seq")),
      kind: item.getAttribute("data-kind") ?? "",
      method: item.getAttribute("data-method"),
      caller: item.getAttribute("data-caller"),
      summary: item.querySelector(".timeline-summary")?.textContent ?? "",
      hidden: (item as unknown as { hidden: boolean }).hidden,
    })),
  );
}

/** Waits until an img of the page shows (decoded, not broken) and answers its src. */
async function shownPicture(page: Page, selector: string): Promise<string> {
  await page.waitForFunction(
    `(() => { const img = document.querySelector(${JSON.stringify(selector)}); return img instanceof HTMLImageElement && !img.hidden && img.complete && img.naturalWidth > 0; })()`,
    WAIT,
  );
  return page.$eval(selector, (img) => img.getAttribute("src") ?? "");
}

describe("dashboard timeline: a tab's steps, events and pictures, live and from an exported file (real hub, puppeteer-core on the test's own Chromium)", function () {
  this.timeout(120_000);
  let hub: Hub;
  let site: FixtureServer;
  let base: string;
  let chrome: PortChrome;
  let browser: Browser;
  let script: TestRpcClient;
  let tab: OpenedTab;
  let entries: Entry[];
  let folder: string;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub(HUB_ENV);
    base = hub.url.replace(/^ws/, "http");
    folder = await mkdtemp(path.join(os.tmpdir(), "tabwire-dashboard-timeline-"));
    chrome = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--headless=new"]);
    browser = await puppeteer.connect({ browserWSEndpoint: chrome.wsUrl, defaultViewport: { width: 1400, height: 1000 } });
    // An agent-like script: navigate, fill, a click that changes the page (it logs and fetches), then a log with HTML in it.
    script = await connect(hub, { token: SCRIPT_TOKEN });
    tab = await openTab(script, "about:blank", { clientId: "alpha" });
    const { target } = tab;
    await script.call("navigate", { target, url: site.url("timeline-login.html") });
    await script.call("fill", { target, selector: "#user", value: "ada" });
    await script.call("click", { target, selector: "#go" });
    await script.call("wait.for", { target, text: "Welcome Ada" });
    await script.call("evaluate", { target, expression: `console.log(${JSON.stringify(HTML_MESSAGE)})` });
    const { entries: read } = await script.call<{ entries: Entry[] }>("timeline.get", { target, limit: 1_000 });
    entries = read;
  });
  after(async () => {
    await browser?.disconnect();
    await chrome?.kill();
    await script?.close();
    await hub?.stop();
    await site?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** The script's calls as timeline.get gave them, in order. */
  function scriptSteps(): Entry[] {
    return entries.filter((entry) => entry.kind === "call" && entry.caller?.who === SCRIPT_CALLER);
  }

  function step(method: string): Entry {
    const found = scriptSteps().find((entry) => entry.method === method);
    if (!found) throw new Error(`the script's timeline has no ${method}`);
    return found;
  }

  /** A fresh browser context (no cookie), signed in through the page's own form with a token. */
  async function signedIn(token: string): Promise<Page> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.evaluateOnNewDocument(WIRE_LOG);
    await page.goto(`${base}/ui`);
    await page.waitForSelector("#token", WAIT);
    await page.type("#token", token);
    await page.click("#sign-in");
    await page.waitForSelector("#stats", WAIT);
    return page;
  }

  /** The tab's view, its timeline showing every call of the script. */
  async function tabView(): Promise<Page> {
    const page = await signedIn(VIEW_TOKEN);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForFunction(
      `document.querySelectorAll('#timeline li[data-kind="call"][data-caller="${SCRIPT_CALLER}"]').length >= ${SCRIPT_METHODS.length}`,
      WAIT,
    );
    return page;
  }

  /** Selects the script's click step and answers the srcs of its before and after pictures as shown. */
  async function clickPictures(page: Page): Promise<{ before: string; after: string }> {
    await page.click(`#timeline li[data-method="click"][data-caller="${SCRIPT_CALLER}"] button.timeline-step`);
    await page.waitForSelector(`#timeline-detail[data-seq="${step("click").seq}"]`, WAIT);
    return { before: await shownPicture(page, "img#timeline-before"), after: await shownPicture(page, "img#timeline-after") };
  }

  it("a tab's view lists the script's steps in order, its console and network entries between them", async () => {
    const page = await tabView();
    const shown = await rows(page);
    const seqs = shown.map((row) => row.seq);
    expect(seqs, "seq order").to.deep.equal([...seqs].sort((a, b) => a - b));
    const steps = shown.filter((row) => row.kind === "call" && row.caller === SCRIPT_CALLER);
    expect(steps.map((row) => row.method)).to.deep.equal(SCRIPT_METHODS);
    expect(steps.map((row) => row.summary)).to.deep.equal(scriptSteps().map((entry) => entry.summary));
    const at = (find: (row: Row) => boolean, what: string): number => {
      const index = shown.findIndex(find);
      expect(index, what).to.be.at.least(0);
      return index;
    };
    const navigate = at((row) => row.method === "navigate", "navigate");
    const fill = at((row) => row.method === "fill", "fill");
    const waited = at((row) => row.method === "wait.for", "wait.for");
    const ready = at((row) => row.kind === "console" && row.summary === "login page ready", "the page's first log");
    const signingIn = at((row) => row.kind === "console" && row.summary === "signing in as ada", "the click's log");
    const request = at((row) => row.kind === "network" && row.summary.includes("/data.json"), "the click's request");
    // A call's row comes when it was answered, after what it set off: the page's first log before navigate's row.
    expect(ready).to.be.below(navigate);
    for (const index of [signingIn, request]) expect(index).to.be.above(fill).and.below(waited);
    expect(navigate).to.be.below(fill);
    await page.browserContext().close();
  });

  it("selecting the click step shows its before and after pictures, which differ", async () => {
    const page = await tabView();
    const pictures = await clickPictures(page);
    expect(pictures.before).to.equal(src(step("click").before));
    expect(pictures.after).to.equal(src(step("click").after));
    expect(pictures.before).to.not.equal(pictures.after);
    // A step that is no action has no pictures: the panel says so.
    await page.click(`#timeline li[data-method="wait.for"] button.timeline-step`);
    await page.waitForSelector(`#timeline-detail[data-seq="${step("wait.for").seq}"] p#timeline-before.no-picture`, WAIT);
    await page.browserContext().close();
  });

  it("filters: console only leaves console rows; a caller leaves that caller's calls and the page's entries", async () => {
    const page = await tabView();
    for (const box of await page.$$('#timeline-kinds input[name="timeline-kind"]:not([value="console"])')) await box.click();
    await page.waitForFunction(
      `[...document.querySelectorAll("#timeline li")].every((li) => li.hidden === (li.dataset.kind !== "console"))`,
      WAIT,
    );
    const consoleOnly = (await rows(page)).filter((row) => !row.hidden);
    expect(new Set(consoleOnly.map((row) => row.kind))).to.deep.equal(new Set(["console"]));
    expect(consoleOnly.map((row) => row.summary)).to.include.members(["login page ready", "signing in as ada"]);
    for (const box of await page.$$('#timeline-kinds input[name="timeline-kind"]:not(:checked)')) await box.click();
    await page.select("#timeline-caller", SCRIPT_CALLER);
    await page.waitForFunction(
      `[...document.querySelectorAll('#timeline li[data-kind="call"]')].every((li) => li.hidden === (li.dataset.caller !== "${SCRIPT_CALLER}"))`,
      WAIT,
    );
    const byScript = (await rows(page)).filter((row) => !row.hidden);
    expect(byScript.filter((row) => row.kind === "call").map((row) => row.method)).to.deep.equal(SCRIPT_METHODS);
    expect(byScript.some((row) => row.kind === "console")).to.equal(true);
    await page.browserContext().close();
  });

  it("the scrubber moved to the first step shows the page as it was at that step", async () => {
    const page = await tabView();
    const first = entries.find((entry) => entry.kind === "call");
    expect(first?.method).to.equal("navigate");
    await page.focus("#timeline-scrub");
    await page.keyboard.press("Home");
    await page.waitForFunction(`document.querySelector("#timeline-scrub").value === "0"`, WAIT);
    await page.waitForFunction(
      `document.querySelector("#timeline-page")?.getAttribute("src") === ${JSON.stringify(src(first?.after))}`,
      WAIT,
    );
    expect(await shownPicture(page, "img#timeline-page")).to.equal(src(first?.after));
    expect(await page.$eval("#timeline-scrub-label", (label) => label.textContent)).to.match(/^Step 1 of \d+: navigate url=/);
    // The step is selected too: its own pictures show beside it.
    await page.waitForSelector(`#timeline-detail[data-seq="${first?.seq}"]`, WAIT);
    await page.browserContext().close();
  });

  it("a console message with HTML in it shows as text: no element is made of it", async () => {
    const page = await tabView();
    await page.waitForFunction(
      `[...document.querySelectorAll('#timeline li[data-kind="console"] .timeline-summary')].some((span) => span.textContent === ${JSON.stringify(HTML_MESSAGE)})`,
      WAIT,
    );
    const made = await page.evaluate(`({
      children: [...document.querySelectorAll('#timeline .timeline-summary')].reduce((sum, span) => sum + span.childElementCount, 0),
      injected: document.querySelector('#injected, img[src="x"]') !== null,
      ran: window.__timelineInjected !== undefined,
    })`);
    expect(made).to.deep.equal({ children: 0, injected: false, ran: false });
    await page.browserContext().close();
  });

  it("another client's scoped session gets TARGET_NOT_FOUND for the tab's timeline and shows nothing of it", async () => {
    const page = await signedIn(BETA_TOKEN);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForFunction(`window.tabwireTimelineErrors.includes(${TARGET_NOT_FOUND})`, WAIT);
    await page.waitForFunction(`/^Timeline: no tab /.test(document.querySelector("#timeline-status")?.textContent ?? "")`, WAIT);
    expect(await page.$$("#timeline li")).to.have.length(0);
    const content = await page.content();
    for (const entry of scriptSteps()) expect(content).to.not.include(entry.summary);
    expect(content).to.not.include("signing in as ada").and.not.include("/9j/");
    await page.browserContext().close();
  });

  it("an exported file opens after the hub restarted, with no hub call: the same steps and pictures; a file that is no export says so", async () => {
    const { content } = await script.call<{ content: string }>("timeline.export", { target: tab.target });
    const file = path.join(folder, "timeline.jsonl");
    await writeFile(file, content);
    const exported = content
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as Entry);
    await closeTab(script, tab.target);
    await script.close();
    await hub.stop();
    hub = await startTestHub(HUB_ENV);
    base = hub.url.replace(/^ws/, "http");
    const page = await signedIn(VIEW_TOKEN);
    await page.click("#open-timeline-file");
    const input = await page.waitForSelector("input#timeline-file", WAIT);
    if (!input) throw new Error("the file view has no file input");
    const sentBefore = ((await page.evaluate("window.tabwireSent")) as string[]).length;
    await input.uploadFile(file);
    await page.waitForFunction(`document.querySelectorAll("#timeline li").length === ${exported.length}`, WAIT);
    expect(await page.$eval("#timeline-file-tab", (element) => element.textContent)).to.include(tab.target);
    const steps = (await rows(page)).filter((row) => row.kind === "call" && row.caller === SCRIPT_CALLER);
    expect(steps.map((row) => row.summary)).to.deep.equal(scriptSteps().map((entry) => entry.summary));
    const pictures = await clickPictures(page);
    const click = exported.find((entry) => entry.seq === step("click").seq);
    expect(pictures).to.deep.equal({ before: src(click?.before), after: src(click?.after) });
    expect(pictures.before).to.not.equal(pictures.after);
    const sent = ((await page.evaluate("window.tabwireSent")) as string[]).slice(sentBefore);
    expect(sent.filter((method) => method.startsWith("timeline."))).to.deep.equal([]);
    // A file that is not an export: a clear message, and no rows.
    const wrong = path.join(folder, "not-a-timeline.jsonl");
    await writeFile(wrong, '{"hello": 1}\n');
    await input.uploadFile(wrong);
    await page.waitForFunction(
      `/not a timeline exported by tabwire/.test(document.querySelector("#timeline-file-status")?.textContent ?? "")`,
      WAIT,
    );
    expect(await page.$$("#timeline li")).to.have.length(0);
    await page.browserContext().close();
  });
});
