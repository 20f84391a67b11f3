// The soak's churn: clients that come and go the ways a busy deployment sees, each leaving something a gone client
// could leave behind (a browser context, a download folder, routes, an MCP session, a /cdp client, a live view, tabs
// whose opener went). The soak's hub abandons and idles them out fast, so the run sees them go within its minutes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";
import type { Tally } from "./soak-tally.js";
import { WsCaller } from "./ws-caller.js";

/** What the soak's hub is started with, so that what the churn leaves goes within the run (seconds, not an hour). */
export const CHURN_HUB_ENV: Readonly<Record<string, string>> = {
  CLIENT_IDLE_MS: "1000",
  CLIENT_ABANDON_MS: "5000",
  MCP_SESSION_IDLE_MS: "5000",
};

// One cycle of each churn loop at most this often: what they leave lives seconds, so a faster pace would only hold
// more renderers at once on a small machine, not find more.
const CHURN_PACE_MS = 1_000;
const FRAME_WAIT_MS = 10_000;
const PAGE = `data:text/html,${encodeURIComponent("<title>churn</title><h1>Churn</h1><p>A client that comes and goes.</p>")}`;

/** What each churn loop is given: the hub, the tally, whether to go on, and a number that makes its client ids its own. */
interface Churn {
  hubUrl: string;
  tally: Tally;
  running: () => boolean;
}

/** The churn loops, each running until `running` says stop. */
export function churnLoops(hubUrl: string, tally: Tally, running: () => boolean): Promise<void>[] {
  const churn = { hubUrl, tally, running };
  return [mcpLoop, cdpLoop, liveViewLoop, routeLoop, abandonLoop].map((loop) => paced(churn, loop));
}

async function paced(churn: Churn, cycle: (churn: Churn, i: number) => Promise<void>): Promise<void> {
  for (let i = 0; churn.running(); i++) {
    const started = Date.now();
    await cycle(churn, i);
    const rest = CHURN_PACE_MS - (Date.now() - started);
    if (rest > 0 && churn.running()) await new Promise((resolve) => setTimeout(resolve, rest));
  }
}

/** An MCP session opens a tab; every other one ends (DELETE), the rest are dropped, left to MCP_SESSION_IDLE_MS. */
async function mcpLoop({ hubUrl, tally }: Churn, i: number): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", hubUrl.replace(/^ws/, "http")));
  const client = new Client({ name: "tabwire-soak", version: "1.0.0" });
  const opened = await tally.step("mcp connect", () => client.connect(transport).then(() => true));
  if (opened) {
    await tally.step("mcp tabs_open", async () => {
      const result = await client.callTool({ name: "tabs_open", arguments: { url: PAGE } });
      if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 80));
    });
    if (i % 2 === 0) await tally.step("mcp end", () => transport.terminateSession());
  }
  await client.close().catch(() => undefined);
  tally.cycle(i % 2 === 0 ? "mcpEnded" : "mcpDropped");
}

/**
 * /cdp in turn: Puppeteer with `ephemeral` closing its page before it disconnects, Puppeteer as a client of its own
 * that leaves its page (abandoned), and Playwright's connectOverCDP closing its page.
 */
async function cdpLoop({ hubUrl, tally }: Churn, i: number): Promise<void> {
  const kind = ["puppeteerEphemeral", "puppeteerLeft", "playwright"][i % 3] as string;
  const query = kind === "puppeteerEphemeral" ? "ephemeral=true" : `clientId=soak-cdp-${i}`;
  if (kind === "playwright") {
    await tally.step("playwright over /cdp", async () => {
      const browser = await chromium.connectOverCDP(`${hubUrl.replace(/^ws/, "http")}/cdp?${query}`);
      const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
      await page.goto(PAGE);
      await page.close();
      await browser.close();
    });
  } else {
    await tally.step("puppeteer over /cdp", async () => {
      const browser = await puppeteer.connect({ browserWSEndpoint: `${hubUrl}/cdp?${query}`, defaultViewport: null });
      const page = await browser.newPage();
      await page.goto(PAGE);
      if (kind === "puppeteerEphemeral") await page.close();
      await browser.disconnect();
    });
  }
  tally.cycle(kind);
}

/** A live view of a fresh client's tab, until its first frame; every other viewer drops its socket with the tab open. */
async function liveViewLoop({ hubUrl, tally }: Churn, i: number): Promise<void> {
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  try {
    const opened = await tally.call(caller, "tabs.open", { url: PAGE, clientId: `soak-view-${i}` });
    if (!opened) return;
    const frame = firstFrame(caller);
    const view = await tally.call(caller, "screencast.start", { target: opened.target, maxFps: 5 });
    if (view && !(await frame)) tally.fail("screencast.frame: none within 10 s");
    if (i % 2 === 0) {
      if (view) await tally.call(caller, "screencast.stop", { subscriptionId: view.subscriptionId });
      await tally.call(caller, "tabs.close", { target: opened.target });
    }
    tally.cycle(i % 2 === 0 ? "liveViewStopped" : "liveViewDropped");
  } finally {
    await caller.close();
  }
}

function firstFrame(caller: WsCaller): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), FRAME_WAIT_MS);
    const dispose = caller.onEvent((message) => message.method === "screencast.frame" && done(true));
    function done(seen: boolean): void {
      clearTimeout(timer);
      dispose();
      resolve(seen);
    }
  });
}

/** A fresh client routes its requests (its own route and its tab's), loads a routed URL, closes its tab, never unroutes. */
async function routeLoop({ hubUrl, tally }: Churn, i: number): Promise<void> {
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  const clientId = `soak-route-${i}`;
  try {
    const opened = await tally.call(caller, "tabs.open", { url: PAGE, clientId });
    if (!opened) return;
    const target = opened.target;
    const body = "<title>routed</title>";
    const headers = { "content-type": "text/html" };
    await tally.call(caller, "network.route", { clientId, url: "https://soak.invalid/**", action: "fulfill", headers, body });
    await tally.call(caller, "network.route", { target, url: "**/never", action: "block" });
    const shown = await tally.call(caller, "navigate", { target, url: "https://soak.invalid/page" });
    if (shown && shown.title !== "routed") tally.fail("network.route: the routed page was not the route's");
    await tally.call(caller, "tabs.close", { target });
    tally.cycle("routes");
  } finally {
    await caller.close();
  }
}

/** A fresh client's opener opens two tabs and closes its socket without tabs.close: the hub abandons them. */
async function abandonLoop({ hubUrl, tally }: Churn, i: number): Promise<void> {
  const caller = await WsCaller.open(`${hubUrl}/rpc`);
  try {
    for (let n = 0; n < 2; n++) await tally.call(caller, "tabs.open", { url: PAGE, clientId: `soak-abandoned-${i}` });
    tally.cycle("abandonedOpeners");
  } finally {
    await caller.close();
  }
}
