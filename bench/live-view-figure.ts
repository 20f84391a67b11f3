import puppeteer, { type Page } from "puppeteer-core";
import { launchChromeWithPort, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import { answered, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";
import { median } from "./stats.js";

// A page that repaints on every animation frame while animating, and holds still otherwise.
const ANIMATED_PAGE = `data:text/html,${encodeURIComponent(
  "<title>live</title><body style='margin:0'><div id=box style='width:100vw;height:100vh'></div><script>" +
    "let n = 0, on = false; const box = document.getElementById('box');" +
    "(function tick() { if (on) box.style.background = 'hsl(' + ((n++ * 7) % 360) + ',80%,50%)'; requestAnimationFrame(tick); })();" +
    "window.animate = (v) => { on = v; };</script>",
)}`;
const FPS_WINDOW_MS = 5_000;
const CHANGES = 15;
// New clients opened while the overview is shown, one tab each.
const NEW_CLIENTS = 15;
// How long the overview may take to show a new client before the step fails (the goal is 300 ms).
const SHOWN_DEADLINE_MS = 10_000;
const VIEW = { format: "jpeg", quality: 60, maxWidth: 1280, maxHeight: 800 } as const;

/**
 * The dashboard's live view, in a browser of its own (the bench's second Chromium) against the hub: frames drawn a second
 * while the page animates, and the time from a page change (sent through the hub) to the frame drawn on the viewer's
 * canvas, against a raw CDP screencast of the same tab on the bench's own socket (change sent, frame received); then
 * the overview: the time from tabs.open of a new client over /rpc to its client and tab shown there.
 */
export async function liveViewFigures(context: BenchContext, hubUrl: string): Promise<Figure[]> {
  const { hub } = context;
  const opened = (await answered(hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { url: ANIMATED_PAGE } }))) as {
    result: { target: string; tabId: string };
  };
  const { target, tabId } = opened.result;
  const viewer = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--headless=new"]);
  const browser = await puppeteer.connect({ browserWSEndpoint: viewer.wsUrl, defaultViewport: { width: 1400, height: 1000 } });
  try {
    const raw = await rawScreencast(context, { target, tabId });
    const page = await browser.newPage();
    await page.goto(`${hubUrl.replace(/^ws/, "http")}/ui#/tab/${encodeURIComponent(target)}`);
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames") ?? 0) > 0`, { timeout: 30_000 });
    const fps = await framesPerSecond(context, target, () => drawnFrames(page));
    const latencies = await changeLatencies(context, target, {
      frameAt: async (since) => {
        await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames")) > ${since.frames}`, {
          polling: "raf",
        });
        return Number(await page.$eval("#live", (canvas) => canvas.getAttribute("data-frame-at")));
      },
      count: () => drawnFrames(page),
    });
    const hubLatency = median(latencies);
    const shown = await newClientLatencies(context, page, hubUrl);
    return [
      {
        name: "dashboard live view: frames drawn a second on the viewer's canvas while the page animates (raw CDP screencast, acknowledged at once)",
        label: "live view fps",
        unit: "fps",
        goal: ">= 10",
        hub: fps,
        alternative: Number.NaN,
        // The goal is on the figure itself.
        ratio: fps,
      },
      {
        name: `dashboard live view: a page change to its frame drawn on the viewer's canvas / raw CDP screencast, change to frame received (median of ${CHANGES}; raw ${raw.fps.toFixed(0)} fps)`,
        label: "live view latency vs raw screencast",
        unit: "ms",
        goal: "(report)",
        hub: hubLatency,
        alternative: raw.latency,
        ratio: hubLatency / raw.latency,
      },
      {
        name: `dashboard overview: tabs.open of a new client over /rpc to its client and tab shown on the overview, measured in the viewer's page (median of ${NEW_CLIENTS})`,
        label: "overview: new client shown",
        unit: "ms",
        goal: "<= 300",
        hub: median(shown),
        alternative: Number.NaN,
        // The goal is on the figure itself.
        ratio: median(shown),
      },
    ];
  } finally {
    await browser.disconnect();
    await viewer.kill();
    await hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } });
  }
}

/**
 * For each of NEW_CLIENTS new clients: the time from sending tabs.open (the bench's clock) to the moment the overview in
 * the viewer's page shows the client's section with the tab's card (the page's clock, the same machine's), a
 * MutationObserver's word; the tabs are closed after.
 */
async function newClientLatencies(context: BenchContext, page: Page, hubUrl: string): Promise<number[]> {
  await page.goto(`${hubUrl.replace(/^ws/, "http")}/ui#/`);
  await page.waitForSelector("[data-client]", { timeout: 30_000 });
  const run = Date.now().toString(36);
  const latencies: number[] = [];
  const targets: string[] = [];
  try {
    for (let i = 0; i < NEW_CLIENTS; i++) {
      const clientId = `overview-${run}-${i}`;
      await page.evaluate(`(${WATCH_FOR_CLIENT})(${JSON.stringify(clientId)}, ${SHOWN_DEADLINE_MS})`);
      const sentAt = Date.now();
      const opened = (await answered(
        context.hub.send({ jsonrpc: "2.0", method: "tabs.open", params: { clientId, url: "about:blank" } }),
      )) as { result: { target: string } };
      targets.push(opened.result.target);
      const shownAt = (await page.evaluate("window.benchShown")) as number;
      latencies.push(shownAt - sentAt);
    }
    return latencies;
  } finally {
    for (const target of targets) await context.hub.send({ jsonrpc: "2.0", method: "tabs.close", params: { target } });
  }
}

// In the viewer's page: window.benchShown resolves with the time the client's section first has a tab card, or
// rejects when it has none by the deadline.
const WATCH_FOR_CLIENT = `(clientId, deadlineMs) => {
  const shown = () => document.querySelector('[data-client="' + clientId + '"] [data-tab]') !== null;
  window.benchShown = new Promise((resolve, reject) => {
    if (shown()) return resolve(Date.now());
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(Date.now());
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error("the overview did not show client " + clientId + " within " + deadlineMs + " ms"));
    }, deadlineMs);
    observer.observe(document.body, { childList: true, subtree: true });
  });
}`;

async function drawnFrames(page: Page): Promise<{ frames: number; at: number }> {
  return page.$eval("#live", (canvas) => ({ frames: Number(canvas.getAttribute("data-frames")), at: Date.now() }));
}

/** Frames counted by `count` over FPS_WINDOW_MS while the page animates. */
async function framesPerSecond(context: BenchContext, target: string, count: () => Promise<{ frames: number }>): Promise<number> {
  await animate(context, target, true);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = await count();
    const began = Date.now();
    await new Promise((resolve) => setTimeout(resolve, FPS_WINDOW_MS));
    const after = await count();
    return (after.frames - before.frames) / ((Date.now() - began) / 1000);
  } finally {
    await animate(context, target, false);
  }
}

/** For each of CHANGES colours: sends the change through the hub and times it to the first frame `frameAt` reports after it. */
async function changeLatencies(
  context: BenchContext,
  target: string,
  viewer: { frameAt: (since: { frames: number }) => Promise<number>; count: () => Promise<{ frames: number }> },
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    // The page is still: the next frame is the change's.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const since = await viewer.count();
    const sentAt = Date.now();
    await answered(
      context.hub.send({
        jsonrpc: "2.0",
        method: "evaluate",
        params: { target, expression: `document.getElementById('box').style.background = 'hsl(${(i * 47) % 360}, 70%, 45%)'` },
      }),
    );
    latencies.push((await viewer.frameAt(since)) - sentAt);
  }
  return latencies;
}

function animate(context: BenchContext, target: string, on: boolean): Promise<unknown> {
  return answered(context.hub.send({ jsonrpc: "2.0", method: "evaluate", params: { target, expression: `animate(${on})` } }));
}

/** A raw screencast of the tab on the bench's own CDP socket: its frames a second, and the median change-to-frame time. */
async function rawScreencast(context: BenchContext, tab: { target: string; tabId: string }): Promise<{ fps: number; latency: number }> {
  const { target, tabId } = tab;
  const { raw } = context;
  const attached = (await answered(raw.send({ method: "Target.attachToTarget", params: { targetId: tabId, flatten: true } }))) as {
    result: { sessionId: string };
  };
  const { sessionId } = attached.result;
  let frames = 0;
  let lastAt = 0;
  let onFrame: () => void = () => {};
  const stop = raw.onEvent((message) => {
    if (message.method !== "Page.screencastFrame" || message.sessionId !== sessionId) return;
    frames++;
    lastAt = Date.now();
    const params = message.params as { sessionId: number };
    void raw.send({ method: "Page.screencastFrameAck", params: { sessionId: params.sessionId }, sessionId });
    onFrame();
  });
  try {
    await answered(raw.send({ method: "Page.startScreencast", params: VIEW, sessionId }));
    const count = async (): Promise<{ frames: number }> => ({ frames });
    const fps = await framesPerSecond(context, target, count);
    const latencies = await changeLatencies(context, target, {
      frameAt: (since) =>
        new Promise((resolve) => {
          onFrame = () => {
            if (frames > since.frames) resolve(lastAt);
          };
          onFrame();
        }),
      count,
    });
    return { fps, latency: median(latencies) };
  } finally {
    stop();
    await raw.send({ method: "Page.stopScreencast", sessionId });
    await raw.send({ method: "Target.detachFromTarget", params: { sessionId } });
  }
}
