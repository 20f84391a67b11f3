import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";
import { answered, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { serveLargePage } from "./large-page.js";
import { connectChromeDevtoolsMcp, newChromeDevtoolsPage, toolText } from "./mcp-peers.js";
import { median } from "./stats.js";

const SNAPSHOT_ROUNDS = 9;
const CLICK_ROUNDS = 6;
const CLICK_CALLS = 10;

/** One way of taking a snapshot: a call that answers its text. */
type Snapshotter = () => Promise<string>;

/**
 * Snapshots of a generated page of about 5,000 elements by the hub, Playwright's `ariaSnapshot()` and
 * chrome-devtools-mcp's `take_snapshot` (over MCP, stdio, on the same Chromium), each on a tab of its own, rounds
 * interleaved: time per snapshot and size of the text; then a click round trip against puppeteer-core's
 * `ElementHandle.click()` and Playwright's `locator.click()`.
 */
export async function actionFigures(context: BenchContext): Promise<Figure[]> {
  const page = await serveLargePage();
  const playwright = await chromium.connectOverCDP(context.cdpUrl);
  const browser = await puppeteer.connect({ browserWSEndpoint: context.cdpUrl, defaultViewport: null });
  const mcp = await connectChromeDevtoolsMcp(context.cdpUrl);
  const opened: string[] = [];
  try {
    const hubTarget = await openHubTab(context, page.url, opened);
    const pwPage = await playwright.contexts()[0]!.newPage();
    await pwPage.goto(page.url);
    const pageId = await newChromeDevtoolsPage(mcp, page.url);
    const hubSnapshot =
      (extra: object): Snapshotter =>
      async () => {
        const answer = await answered(context.hub.send({ jsonrpc: "2.0", method: "snapshot", params: { target: hubTarget, ...extra } }));
        return (answer.result as { text: string }).text;
      };
    const contenders: Record<string, Snapshotter> = {
      hub: hubSnapshot({ source: "dom" }),
      hubChrome: hubSnapshot({ source: "chrome" }),
      hubInteractive: hubSnapshot({ source: "dom", interactiveOnly: true }),
      playwright: () => pwPage.locator("body").ariaSnapshot(),
      chromeDevtoolsMcp: () => toolText(mcp, "take_snapshot", { pageId }),
    };
    const snapshots = await timeSnapshots(contenders);
    const clicks = await clickFigures(context, { hubTarget, pwPage, browser, url: page.url });
    return [...snapshotFigures(snapshots), ...clicks];
  } finally {
    for (const target of opened) await context.hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } });
    await mcp.close();
    await browser.disconnect();
    await playwright.close();
    await page.close();
  }
}

async function openHubTab(context: BenchContext, url: string, opened: string[]): Promise<string> {
  const answer = await answered(context.hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url, background: true } }));
  const { target } = answer.result as { target: string };
  opened.push(target);
  return target;
}

/** Per contender: the median time of a snapshot (ms) and the length of its text, rounds interleaved after a warm-up. */
async function timeSnapshots(contenders: Record<string, Snapshotter>): Promise<Record<string, { ms: number; chars: number }>> {
  const times: Record<string, number[]> = {};
  const sizes: Record<string, number> = {};
  for (const [name, take] of Object.entries(contenders)) {
    sizes[name] = (await take()).length;
    times[name] = [];
  }
  for (let round = 0; round < SNAPSHOT_ROUNDS; round++) {
    for (const [name, take] of Object.entries(contenders)) {
      const started = performance.now();
      await take();
      times[name]!.push(performance.now() - started);
    }
  }
  return Object.fromEntries(Object.keys(contenders).map((name) => [name, { ms: median(times[name]!), chars: sizes[name]! }]));
}

function snapshotFigures(s: Record<string, { ms: number; chars: number }>): Figure[] {
  const { hub, hubChrome, hubInteractive, playwright, chromeDevtoolsMcp } = s as Record<string, { ms: number; chars: number }>;
  const faster = Math.min(playwright!.ms, chromeDevtoolsMcp!.ms);
  const smaller = Math.min(playwright!.chars, chromeDevtoolsMcp!.chars);
  const row = ([name, label, unit]: [string, string, string], values: { hub: number; alternative: number; goal: string }): Figure => ({
    name,
    label,
    unit,
    ...values,
    ratio: values.hub / values.alternative,
  });
  return [
    row(
      [
        'snapshot (source: "dom") of a 5,000-element page: hub / the faster of Playwright ariaSnapshot() and chrome-devtools-mcp take_snapshot',
        "snapshot time vs the faster peer",
        "ms",
      ],
      { hub: hub!.ms, alternative: faster, goal: "<= 0.8" },
    ),
    row(
      [
        'snapshot (source: "chrome", the default: Chrome\'s accessibility tree) of the same page: hub / the faster peer',
        "Chrome-tree snapshot time vs the faster peer",
        "ms",
      ],
      { hub: hubChrome!.ms, alternative: faster, goal: "(report)" },
    ),
    row(
      [
        'snapshot interactiveOnly text (source: "dom") / the smaller full snapshot text of the two peers (same page)',
        "interactiveOnly size vs smaller peer",
        "chars",
      ],
      { hub: hubInteractive!.chars, alternative: smaller, goal: "<= 0.5" },
    ),
    row(
      [
        "peers, not tabwire: Playwright ariaSnapshot() / chrome-devtools-mcp take_snapshot, time (Playwright in the tabwire column)",
        "peers: Playwright vs chrome-devtools-mcp snapshot time",
        "ms",
      ],
      { hub: playwright!.ms, alternative: chromeDevtoolsMcp!.ms, goal: "(report)" },
    ),
    row(
      [
        'snapshot text: hub full (source: "dom") / Playwright ariaSnapshot(); chrome-devtools-mcp\'s is ' +
          `${chromeDevtoolsMcp!.chars} chars`,
        "full snapshot size vs Playwright",
        "chars",
      ],
      { hub: hub!.chars, alternative: playwright!.chars, goal: "(report)" },
    ),
  ];
}

interface ClickSetup {
  hubTarget: string;
  pwPage: import("playwright-core").Page;
  browser: import("puppeteer-core").Browser;
  url: string;
}

/** A click round trip on the same button: the hub's click, puppeteer-core's ElementHandle.click(), Playwright's locator.click(). */
async function clickFigures(context: BenchContext, setup: ClickSetup): Promise<Figure[]> {
  const ppPage = await setup.browser.newPage();
  await ppPage.goto(setup.url);
  const handle = await ppPage.$("#target");
  if (!handle) throw new Error("puppeteer-core found no #target");
  const clickers: Record<string, { front: () => Promise<unknown>; click: () => Promise<unknown> }> = {
    hub: {
      front: () => answered(context.hub.send({ jsonrpc: "2.0", method: "tabs.activate", params: { target: setup.hubTarget } })),
      click: () =>
        answered(context.hub.send({ jsonrpc: "2.0", method: "click", params: { target: setup.hubTarget, selector: "#target" } })),
    },
    puppeteer: { front: () => ppPage.bringToFront(), click: () => handle.click() },
    playwright: { front: () => setup.pwPage.bringToFront(), click: () => setup.pwPage.locator("#target").click() },
  };
  // A page in the background paints no frames (Playwright's click waits for two): each clicks its page in front,
  // in blocks, the order rotated every round.
  const times: Record<string, number[]> = { hub: [], puppeteer: [], playwright: [] };
  const names = Object.keys(clickers);
  for (let round = 0; round < CLICK_ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as string;
      const { front, click } = clickers[name]!;
      await front();
      await click();
      for (let call = 0; call < CLICK_CALLS; call++) {
        const started = performance.now();
        await click();
        times[name]!.push(performance.now() - started);
      }
    }
  }
  await ppPage.close();
  const [hub, pp, pw] = [median(times.hub!), median(times.puppeteer!), median(times.playwright!)];
  return [
    {
      name: "click round trip on a button of the large page: hub / the faster of puppeteer-core ElementHandle.click() and Playwright locator.click()",
      label: "click vs the faster peer",
      unit: "ms",
      hub,
      alternative: Math.min(pp, pw),
      ratio: hub / Math.min(pp, pw),
      goal: "<= 1.0",
    },
    {
      name: "peers, not tabwire: puppeteer-core ElementHandle.click() / Playwright locator.click() (puppeteer in the tabwire column)",
      label: "peers: puppeteer vs Playwright click",
      unit: "ms",
      hub: pp,
      alternative: pw,
      ratio: pp / pw,
      goal: "(report)",
    },
  ];
}
