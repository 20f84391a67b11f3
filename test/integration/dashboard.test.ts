import { expect } from "chai";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { launchChromeWithPort, resolveChromePath, type PortChrome } from "../../src/cdp/chrome-launcher.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL = "ui-full-token";
const TOKEN_A = "ui-token-alpha";
const TOKEN_B = "ui-token-beta";
// A page with a large button: a click on the live view where the button is drawn presses it.
const BUTTON_PAGE =
  "data:text/html,<title>press me</title><body style='margin:0'><button id=b style='position:absolute;left:100px;top:80px;width:400px;height:240px;font-size:40px' onclick=\"document.title='pressed';document.body.insertAdjacentHTML('beforeend','<p id=done>pressed by a person</p>')\">Press</button></body>";

// A field that says what was submitted, and a page long enough to scroll.
const FORM_PAGE =
  "data:text/html,<title>form</title><body style='margin:0'><form id=f style='padding:20px' onsubmit=\"event.preventDefault();document.getElementById('out').textContent='submitted: '+document.getElementById('q').value\"><input id=q style='width:300px;height:30px;font-size:20px'></form><p id=out></p><div style='height:3000px'></div><p id=far>the end</p></body>";

/**
 * Runs in the dashboard's page before its scripts: keeps, in order, the JSON-RPC frames its sockets receive (a
 * notification's method with its target and title, or "answer") and each `{ shown }` mark of whenShown.
 */
const WIRE_LOG = `(() => {
  window.tabwireWire = [];
  const Native = WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        try {
          const frame = JSON.parse(event.data);
          const params = frame.params || {};
          window.tabwireWire.push({ in: frame.method || "answer", target: params.target, title: params.title });
        } catch {}
      });
    }
  };
})()`;

/** Marks the page's frame log with `{ shown: label }` as soon as `condition` (an expression) holds in the page. */
async function whenShown(page: Page, label: string, condition: string): Promise<void> {
  await page.evaluate(`(() => {
    const done = () => { window.tabwireWire.push({ shown: ${JSON.stringify(label)} }); observer.disconnect(); };
    const observer = new MutationObserver(() => { if (${condition}) done(); });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    if (${condition}) done();
  })()`);
}

/**
 * Waits for the mark of whenShown and answers the frame received just before it: the one whose handling put it on
 * screen (a frame's handler and the observer's callback run in one task, before the next frame's).
 */
async function shownBy(page: Page, label: string): Promise<Record<string, unknown> | undefined> {
  await page.waitForFunction(`window.tabwireWire.some((entry) => entry.shown === ${JSON.stringify(label)})`);
  const log = (await page.evaluate("window.tabwireWire")) as Record<string, unknown>[];
  const at = log.findIndex((entry) => entry.shown === label);
  return log
    .slice(0, at)
    .reverse()
    .find((entry) => entry.in !== undefined);
}

/** Signs in through the page's own form and waits for the overview. */
async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/ui`);
  await page.waitForSelector("#token");
  await page.type("#token", token);
  await page.click("#sign-in");
}

describe("dashboard in a browser: sign in, overview, live view, console, take over (real hub, puppeteer-core on the test's own Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let site: FixtureServer;
  let base: string;
  let chrome: PortChrome;
  let browser: Browser;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let betaTab: OpenedTab;
  const requested: string[] = [];

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({ HUB_TOKEN: FULL, HUB_TOKENS: `${TOKEN_A}:alpha,${TOKEN_B}:beta`, AUTH_KEY: "ui-agent-key" });
    base = hub.url.replace(/^ws/, "http");
    chrome = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--headless=new"]);
    browser = await puppeteer.connect({ browserWSEndpoint: chrome.wsUrl, defaultViewport: { width: 1280, height: 900 } });
    [alpha, beta] = await Promise.all([connect(hub, { token: TOKEN_A }), connect(hub, { token: TOKEN_B })]);
    betaTab = await openTab(beta, "data:text/html,<title>beta secret</title>");
  });
  after(async () => {
    await browser?.disconnect();
    await chrome?.kill();
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await site?.close();
  });

  /** A fresh browser context (no cookie) with every request it makes recorded. */
  async function freshPage(): Promise<Page> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    page.on("request", (request) => requested.push(request.url()));
    return page;
  }

  it("a wrong token cannot sign in: the form says why and no session cookie is set", async () => {
    const page = await freshPage();
    await signIn(page, base, "not-a-token");
    const error = await page.waitForSelector("#sign-in-error:not(:empty)");
    expect(await error?.evaluate((element) => element.textContent)).to.match(/token/i);
    expect(await page.browserContext().cookies()).to.deep.equal([]);
    expect(await page.$("[data-client]")).to.equal(null);
    await page.browserContext().close();
  });

  it("overview: a client opened over /rpc shows within a second, and its thumbnail is an image that changes with the page", async () => {
    const page = await freshPage();
    await signIn(page, base, FULL);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, "data:text/html,<title>thumb</title><body style='background:rgb(0,0,200)'>");
    await page.waitForSelector(`[data-client="alpha"] [data-tab="${tab.target}"]`, { timeout: 1_000 });
    const thumb = `[data-tab="${tab.target}"] img.thumb`;
    const src = (): Promise<string> => page.$eval(thumb, (img) => img.getAttribute("src") ?? "");
    await page.waitForFunction(`document.querySelector(${JSON.stringify(thumb)})?.getAttribute("src")?.startsWith("data:image/jpeg")`);
    const before = await src();
    await evaluate(alpha, tab.target, "document.body.style.background = 'rgb(250, 200, 0)'; document.body.textContent = 'changed'");
    await page.waitForFunction(`document.querySelector(${JSON.stringify(thumb)})?.getAttribute("src") !== ${JSON.stringify(before)}`);
    expect(await src()).to.match(/^data:image\/jpeg;base64,/);
    const size = await page.$eval(thumb, (img) => ({
      width: (img as unknown as { naturalWidth: number }).naturalWidth,
      height: (img as unknown as { naturalHeight: number }).naturalHeight,
    }));
    expect(size.width).to.be.above(0);
    expect(size.height).to.be.above(0);
    await page.browserContext().close();
  });

  it("overview: a new client and its tab show from tab.opened itself, and the card's new title from tab.updated, before any read of the lists", async () => {
    const page = await freshPage();
    await page.evaluateOnNewDocument(WIRE_LOG);
    await signIn(page, base, FULL);
    await page.waitForSelector("#stats");
    const full = await connect(hub, { token: FULL });
    try {
      await whenShown(page, "new client", `document.querySelector('[data-client="gamma"] [data-tab]') !== null`);
      const tab = await openTab(full, "data:text/html,<title>before the rename</title>", { clientId: "gamma" });
      expect(await shownBy(page, "new client")).to.deep.equal({ in: "tab.opened", target: tab.target });
      const title = `[data-client="gamma"] [data-tab="${tab.target}"] .tab-title`;
      await page.waitForFunction(`document.querySelector(${JSON.stringify(title)})?.textContent === "before the rename"`);
      await whenShown(page, "renamed", `document.querySelector(${JSON.stringify(title)})?.textContent === "renamed by the page"`);
      await evaluate(full, tab.target, "document.title = 'renamed by the page'");
      expect(await shownBy(page, "renamed")).to.deep.equal({ in: "tab.updated", target: tab.target, title: "renamed by the page" });
    } finally {
      await full.close();
      await page.browserContext().close();
    }
  });

  it("tab view: the URL bar shows the tab's URL, follows a history push, and loads an address typed into it", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, site.url("index.html"));
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    const urlIs = (url: string): Promise<unknown> =>
      page.waitForFunction(`document.querySelector("#tab-url")?.value === ${JSON.stringify(url)}`);
    await urlIs(site.url("index.html"));
    await evaluate(alpha, tab.target, "history.pushState({}, '', '/pushed-by-the-page')");
    await urlIs(site.url("pushed-by-the-page"));
    await page.click("#tab-url", { clickCount: 3 });
    await page.keyboard.type(site.url("other.html"));
    await page.keyboard.press("Enter");
    await alpha.call("wait.for", { target: tab.target, selector: "#which", timeoutMs: 10_000 });
    expect((await evaluate<{ value: unknown }>(alpha, tab.target, "location.href")).value).to.equal(site.url("other.html"));
    await urlIs(site.url("other.html"));
    await page.waitForFunction(`document.querySelector("#tab-title")?.textContent === "Other Page"`);
    await page.browserContext().close();
    await closeTab(alpha, tab.target);
  });

  it("tab view: Back, Forward and Reload move the tab through its history and reload it; Forward on its last page says why", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, site.url("index.html"));
    await alpha.call("navigate", { target: tab.target, url: site.url("other.html") });
    const href = async (): Promise<unknown> => (await evaluate<{ value: unknown }>(alpha, tab.target, "location.href")).value;
    const urlIs = (url: string): Promise<unknown> =>
      page.waitForFunction(`document.querySelector("#tab-url")?.value === ${JSON.stringify(url)}`);
    // The bar says "Loading…" from the click until the hub answers.
    const answered = (): Promise<unknown> => page.waitForFunction(`document.querySelector("#url-status")?.textContent === ""`);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await urlIs(site.url("other.html"));
    await page.click("#tab-back");
    await answered();
    await urlIs(site.url("index.html"));
    expect(await href()).to.equal(site.url("index.html"));
    await page.click("#tab-forward");
    await answered();
    await urlIs(site.url("other.html"));
    expect(await href()).to.equal(site.url("other.html"));
    await evaluate(alpha, tab.target, "window.__beforeReload = true");
    await page.click("#tab-reload");
    await answered();
    expect((await evaluate<{ value: unknown }>(alpha, tab.target, "typeof window.__beforeReload")).value).to.equal("undefined");
    expect(await href()).to.equal(site.url("other.html"));
    // On the last page of its history Forward has nowhere to go, and the bar says so in the hub's words.
    await page.click("#tab-forward");
    await page.waitForFunction(`/^tabs\\.forward: .*last of its history/.test(document.querySelector("#url-status")?.textContent ?? "")`);
    expect(await page.$eval("#url-status", (status) => status.textContent)).to.match(
      /^tabs\.forward: invalid params for tabs\.forward: the tab has no page to go forward to/,
    );
    expect(await href()).to.equal(site.url("other.html"));
    await page.browserContext().close();
    await closeTab(alpha, tab.target);
  });

  it("tab view: console lines show their time and follow new lines until the reader scrolls up; a button brings the following back", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, "data:text/html,<title>many lines</title>");
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    const lastLine = (text: string): Promise<unknown> =>
      page.waitForFunction(`document.querySelector("#console li:last-child .console-text")?.textContent === ${JSON.stringify(text)}`);
    const atBottom =
      "(() => { const list = document.querySelector('#console'); return list.scrollTop + list.clientHeight >= list.scrollHeight - 2; })()";
    await evaluate(alpha, tab.target, "for (let i = 0; i < 80; i++) console.log('row ' + i)");
    await lastLine("row 79");
    await page.waitForFunction(atBottom);
    const time = await page.$eval("#console li:last-child time", (element) => element.textContent ?? "");
    expect(time).to.match(/^\d\d:\d\d:\d\d\.\d{3}$/);
    expect(await page.$eval("#console-follow", (button) => button.hasAttribute("hidden"))).to.equal(true);
    // The reader scrolls up: new lines no longer move the list, and the button shows.
    await page.$eval("#console", (list) => {
      list.scrollTop = 0;
      list.dispatchEvent(new Event("scroll"));
    });
    await evaluate(alpha, tab.target, "for (let i = 80; i < 100; i++) console.log('row ' + i)");
    await lastLine("row 99");
    await page.waitForFunction(`!document.querySelector("#console-follow").hidden`);
    expect(await page.$eval("#console", (list) => list.scrollTop)).to.equal(0);
    await page.click("#console-follow");
    await page.waitForFunction(atBottom);
    await evaluate(alpha, tab.target, "console.log('row 100')");
    await lastLine("row 100");
    await page.waitForFunction(atBottom);
    await page.browserContext().close();
    await closeTab(alpha, tab.target);
  });

  it("tab view: a request the page makes shows in the network list by itself, its whole URL in view", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, site.url("index.html"));
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForSelector("#network tbody tr");
    const url = site.url(`data.json?query=${"long-value-".repeat(12)}&end=1`);
    await evaluate(alpha, tab.target, { expression: `fetch(${JSON.stringify(url)}).then((r) => r.text())`, awaitPromise: true });
    const cell = `[...document.querySelectorAll("#network tr[data-state=finished] td.col-url")].find((td) => td.textContent === ${JSON.stringify(url)})`;
    await page.waitForFunction(`Boolean(${cell})`);
    const fits = await page.evaluate(
      `(() => { const td = ${cell}; return td.scrollWidth <= td.clientWidth && td.getBoundingClientRect().height > 0; })()`,
    );
    expect(fits, "the URL's cell shows all of it").to.equal(true);
    expect(await page.$("#network-refresh")).to.equal(null);
    await page.browserContext().close();
    await closeTab(alpha, tab.target);
  });

  it("tab view: console messages in order, and a click on the live view presses the page's button", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, BUTTON_PAGE);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames") ?? 0) > 0`);
    await evaluate(alpha, tab.target, "console.log('first'); console.warn('second'); console.error('third')");
    await page.waitForFunction(`document.querySelectorAll("#console li").length >= 3`);
    const lines = await page.$$eval("#console li", (items) =>
      items.map((item) => [item.getAttribute("data-level"), item.textContent ?? ""]),
    );
    const ours = lines.filter(([, text]) => /first|second|third/.test(text as string));
    expect(ours.map(([level]) => level)).to.deep.equal(["log", "warn", "error"]);
    expect(ours.map(([, text]) => /first|second|third/.exec(text as string)?.[0])).to.deep.equal(["first", "second", "third"]);
    // Click where the button is drawn: its centre in CSS pixels of the tab, scaled to the canvas on screen.
    const width = (await evaluate<{ value: number }>(alpha, tab.target, "innerWidth")).value;
    const canvas = await page.$("#live");
    const box = await canvas?.boundingBox();
    if (!box) throw new Error("the live view has no box");
    const scale = box.width / width;
    await page.mouse.click(box.x + 300 * scale, box.y + 200 * scale);
    await alpha.call("wait.for", { target: tab.target, selector: "#done", timeoutMs: 10_000 });
    expect((await evaluate<{ value: unknown }>(alpha, tab.target, "document.title")).value).to.equal("pressed");
    await page.browserContext().close();
  });

  it("take over: keys typed on the live view go into the page's focused field, and the wheel scrolls it", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, FORM_PAGE);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames") ?? 0) > 0`);
    const box = await (await page.$("#live"))?.boundingBox();
    if (!box) throw new Error("the live view has no box");
    const scale = box.width / (await evaluate<{ value: number }>(alpha, tab.target, "innerWidth")).value;
    // A click on the field focuses it in the tab; the keys then go to the tab while the view has the focus.
    await page.mouse.click(box.x + 150 * scale, box.y + 40 * scale);
    await alpha.call("wait.for", { target: tab.target, selector: "#q:focus", state: "attached", timeoutMs: 10_000 });
    await page.keyboard.type("hello tabwire");
    await page.keyboard.press("Enter");
    await alpha.call("wait.for", { target: tab.target, text: "submitted: hello tabwire", timeoutMs: 10_000 });
    await page.mouse.move(box.x + 150 * scale, box.y + 300 * scale);
    await page.mouse.wheel({ deltaY: 600 });
    // The view gathers wheel turns for a moment before it sends them: the tab answers at its first scroll, 10 s at most.
    const scrolled = await alpha.call("evaluate", {
      target: tab.target,
      expression:
        "new Promise((resolve) => (scrollY > 0 ? resolve(scrollY) : addEventListener('scroll', () => resolve(scrollY), { once: true })))",
      timeoutMs: 10_000,
    });
    expect((scrolled as { value: number }).value).to.be.above(0);
    await page.browserContext().close();
  });

  it("a tab in the background sends its live view frames once the view's button brings it to the front", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector("#stats");
    const tab = await openTab(alpha, BUTTON_PAGE, { background: true });
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForSelector("#live-activate");
    await page.click("#live-activate");
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames") ?? 0) > 0`);
    await page.browserContext().close();
  });

  it("a scoped token's session never shows another client, and another client's tab view shows nothing of it", async () => {
    const page = await freshPage();
    await signIn(page, base, TOKEN_A);
    await page.waitForSelector('[data-client="alpha"]');
    const clients = await page.$$eval("[data-client]", (sections) => sections.map((section) => section.getAttribute("data-client")));
    expect(clients).to.deep.equal(["alpha"]);
    expect(await page.content())
      .to.not.include("beta secret")
      .and.not.include(betaTab.tabId);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(betaTab.target)}`);
    await page.waitForFunction(`document.querySelector("#tab-state")?.textContent?.includes("not in tabs.list")`);
    const frames = await page.$eval("#live", (canvas) => canvas.getAttribute("data-frames"));
    expect(Number(frames ?? 0)).to.equal(0);
    expect(await page.content()).to.not.include("beta secret");
    await page.browserContext().close();
  });

  it("on a phone-sized screen, signed in with the keyboard alone, nothing is wider than the screen", async () => {
    const page = await freshPage();
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.goto(`${base}/ui`);
    await page.waitForSelector("#token");
    // Tab through the page to the token field, type, and submit with Enter: no pointer.
    for (let presses = 0; presses < 10 && !(await page.$eval("#token", (field) => field === field.ownerDocument.activeElement)); presses++)
      await page.keyboard.press("Tab");
    await page.keyboard.type(TOKEN_A);
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-client="alpha"] img.thumb');
    const tab = await openTab(alpha, BUTTON_PAGE);
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(tab.target)}`);
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames") ?? 0) > 0`);
    const widths = await page.evaluate(
      `({ page: document.documentElement.scrollWidth, live: document.querySelector("#live").getBoundingClientRect().width })`,
    );
    expect(widths).to.have.property("page").at.most(390);
    expect(widths).to.have.property("live").at.most(390).and.above(200);
    await page.browserContext().close();
  });

  it("the page made no request off the hub's origin", () => {
    const off = requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
    expect(requested.length).to.be.above(0);
    expect(off).to.deep.equal([]);
  });
});
