import { setTimeout as sleep } from "node:timers/promises";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { answered } from "./compare.js";
import type { Figure } from "./figure.js";
import { serveArticlePage, serveLargePage } from "./large-page.js";
import {
  connectChromeDevtoolsMcp,
  connectMcp,
  connectPlaywrightMcp,
  newChromeDevtoolsPage,
  toolsListChars,
  toolText as call,
} from "./mcp-peers.js";
import { median } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const ROUNDS = 7;
const LOAD_TIMEOUT_MS = 30_000;
const IDLE_BEFORE_CAPTURE_MS = 100;
/** An agent's steps, in the order it takes them. */
export const STEPS = ["load the page", "snapshot", "click a ref", "snapshot again", "screenshot"] as const;
export type Step = (typeof STEPS)[number];

interface Snapshot {
  text: string;
  /** What the agent read to see the whole page: every page's answer when the server pages its snapshot. */
  readChars: number;
}

/** One MCP server as an agent drives it: the five steps, each one or two tool calls. */
export interface McpAgent {
  /** Loads the page in the agent's tab: the first time in a new tab, then by navigating that tab, as agents do. */
  open(url: string): Promise<void>;
  /** The whole snapshot text, and the characters the agent read to get it (every page, when the server pages it). */
  snapshot(): Promise<Snapshot>;
  /** The characters of the server's `tools/list` answer (its JSON), what a model reads before its first call. */
  toolsListChars(): Promise<number>;
  /** Clicks the page's "Click target" button by the ref the last snapshot gave it. */
  click(snapshot: string): Promise<void>;
  screenshot(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The same agent step sequence (load a page, snapshot, click a ref, snapshot again, screenshot) through tabwire's MCP
 * front (Streamable HTTP), `@playwright/mcp` and `chrome-devtools-mcp` (stdio, both on the bench's Chromium), rounds
 * interleaved on the generated 5,000-element page: the median time of each step, the size of each default snapshot (all of
 * its pages) there and on the 2,900-element article page, and of each server's tools/list.
 * The warm-up round opens each agent's tab; the measured rounds load the page into it again.
 */
export async function mcpFigures(cdpUrl: string, hubUrl: string): Promise<Figure[]> {
  const page = await serveLargePage();
  const floor = await RawCdpFloor.open(cdpUrl);
  const agents: Record<string, McpAgent> = {
    tabwire: await tabwireAgent(hubUrl),
    playwrightMcp: await playwrightMcpAgent(cdpUrl),
    chromeDevtoolsMcp: await chromeDevtoolsMcpAgent(cdpUrl),
  };
  try {
    const times: Record<string, Record<Step, number[]>> = {};
    const floorTimes: Record<FloorStep, number[]> = { "load the page": [], screenshot: [] };
    const sizes: Record<string, number> = {};
    const toolsLists: Record<string, number> = {};
    const names = Object.keys(agents);
    for (const name of names) toolsLists[name] = await agents[name]!.toolsListChars();
    for (const name of names) times[name] = Object.fromEntries(STEPS.map((step) => [step, []])) as unknown as Record<Step, number[]>;
    // A warm-up round first, then rounds with the order of the agents rotated.
    for (let round = -1; round < ROUNDS; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(Math.max(round, 0) + i) % names.length] as string;
        const measured = await runSequence(agents[name]!, page.url);
        sizes[name] = measured.snapshotChars;
        if (round >= 0) for (const step of STEPS) times[name]![step].push(measured.ms[step]);
      }
      const measured = await floor.run(page.url);
      if (round >= 0) for (const step of FLOOR_STEPS) floorTimes[step].push(measured[step]);
    }
    const articleSizes = await articleSnapshotSizes(agents);
    return [
      ...figures(times, floorTimes),
      sizeFigure("snapshot", sizes),
      sizeFigure("article snapshot", articleSizes),
      sizeFigure("tools/list", toolsLists),
    ];
  } finally {
    for (const agent of Object.values(agents)) await agent.close().catch(() => undefined);
    await floor.close();
    await page.close();
  }
}

/** One pass of the steps on the page at `url`: each step's time, and the characters of the first snapshot (all its pages). */
export async function runSequence(agent: McpAgent, url: string): Promise<{ ms: Record<Step, number>; snapshotChars: number }> {
  const ms = {} as Record<Step, number>;
  const timed = async <T>(step: Step, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await run();
    ms[step] = performance.now() - started;
    return value;
  };
  await timed("load the page", () => agent.open(url));
  const first = await timed("snapshot", () => agent.snapshot());
  await timed("click a ref", () => agent.click(first.text));
  await timed("snapshot again", () => agent.snapshot());
  await timed("screenshot", () => agent.screenshot());
  return { ms, snapshotChars: first.readChars };
}

// What tabwire's answer to a step carries that the peers' do not (docs/mcp.md): part of the step's time.
const CARRIES: Partial<Record<Step, string>> = {
  "load the page": "; tabwire's answer carries the page's snapshot, the peers' do not",
  "click a ref": "; tabwire's answer carries what the click changed on the page",
};

function figures(times: Record<string, Record<Step, number[]>>, floorTimes: Record<FloorStep, number[]>): Figure[] {
  const med = (name: string, step: Step): number => median(times[name]![step]);
  const rows: Figure[] = STEPS.map((step) => {
    const hub = med("tabwire", step);
    const [playwright, devtools] = [med("playwrightMcp", step), med("chromeDevtoolsMcp", step)];
    const alternative = Math.min(playwright, devtools);
    const floorMs = (FLOOR_STEPS as readonly string[]).includes(step) ? median(floorTimes[step as FloorStep]) : undefined;
    const floorNote = floorMs === undefined ? "" : `; Chrome's own floor, raw CDP, ${floorMs.toFixed(1)} ms`;
    return {
      name: `MCP step "${step}" on a 5,000-element page: tabwire / the faster of @playwright/mcp (${playwright.toFixed(1)} ms) and chrome-devtools-mcp (${devtools.toFixed(1)} ms)${floorNote}${CARRIES[step] ?? ""}`,
      label: `MCP ${step} vs the faster peer`,
      unit: "ms",
      hub,
      alternative,
      ratio: hub / alternative,
      goal: "<= 0.7",
    };
  });
  return rows;
}

/** Each agent's default snapshot of the article page, every page read: a page of text and links, not of tables and forms. */
async function articleSnapshotSizes(agents: Record<string, McpAgent>): Promise<Record<string, number>> {
  const page = await serveArticlePage();
  try {
    const sizes: Record<string, number> = {};
    for (const [name, agent] of Object.entries(agents)) {
      await agent.open(page.url);
      sizes[name] = (await agent.snapshot()).readChars;
    }
    return sizes;
  } finally {
    await page.close();
  }
}

/**
 * A size in characters a model reads, tabwire's against the smaller peer's: the default snapshot with every page read
 * (the cursor followed), or the tools/list answer. The name gives the ratio to each peer.
 */
function sizeFigure(what: "snapshot" | "article snapshot" | "tools/list", sizes: Record<string, number>): Figure {
  const [hub, playwright, devtools] = [sizes.tabwire!, sizes.playwrightMcp!, sizes.chromeDevtoolsMcp!];
  const whose = {
    snapshot: "default snapshot text of the 5,000-element page, every page read",
    "article snapshot": "default snapshot text of a 2,900-element page of articles, every page read",
    "tools/list": "tools/list answer",
  }[what];
  const each = `${(hub / playwright).toFixed(2)}x @playwright/mcp's ${playwright} chars, ${(hub / devtools).toFixed(2)}x chrome-devtools-mcp's ${devtools} chars`;
  return {
    name: `MCP ${whose}: tabwire / the smaller peer's (${each})`,
    label: `MCP ${what} size vs the smaller peer`,
    unit: "chars",
    hub,
    alternative: Math.min(playwright, devtools),
    ratio: hub / Math.min(playwright, devtools),
    goal: "<= 1.0",
  };
}

/** An agent on a tabwire hub's MCP front (Streamable HTTP at `/mcp`), in a session of its own. */
export async function tabwireAgent(hubUrl: string): Promise<McpAgent> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", hubUrl.replace(/^ws/, "http")));
  const client = await connectMcp(transport);
  let target = "";
  return {
    open: async (url) => {
      if (target) await call(client, "navigate", { target, url });
      // The answer's first line is its JSON; the page's snapshot follows it.
      else target = (JSON.parse((await call(client, "tabs_open", { url })).split("\n")[0] ?? "") as { target: string }).target;
    },
    // The default answer is a page of the snapshot: the agent reads on with the cursor each page names, as a model
    // looking for a button further down would; the step's time and its size figure count every page.
    snapshot: async () => {
      const pages = [await call(client, "snapshot", { target })];
      for (let cursor = cursorIn(pages.at(-1)!); cursor; cursor = cursorIn(pages.at(-1)!)) {
        pages.push(await call(client, "snapshot", { target, cursor }));
      }
      return { text: pages.join("\n"), readChars: pages.reduce((sum, page) => sum + page.length, 0) };
    },
    toolsListChars: () => toolsListChars(client),
    click: async (snapshot) => void (await call(client, "click", { target, ref: refIn(snapshot, /button "Click target" \[ref=(e\d+)\]/) })),
    screenshot: async () => void (await call(client, "screenshot", { target })),
    // Ends the session on the hub (DELETE), and its tab with it, rather than leaving it to MCP_SESSION_IDLE_MS.
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

async function playwrightMcpAgent(cdpUrl: string): Promise<McpAgent> {
  const { client, close } = await connectPlaywrightMcp(cdpUrl);
  return {
    open: async (url) => void (await call(client, "browser_navigate", { url })),
    snapshot: async () => whole(await call(client, "browser_snapshot", {})),
    toolsListChars: () => toolsListChars(client),
    click: async (snapshot) =>
      void (await call(client, "browser_click", {
        element: "Click target button",
        target: refIn(snapshot, /button "Click target" \[ref=(\w+)\]/),
      })),
    screenshot: async () => void (await call(client, "browser_take_screenshot", { type: "png", scale: "css" })),
    close,
  };
}

async function chromeDevtoolsMcpAgent(cdpUrl: string): Promise<McpAgent> {
  const client = await connectChromeDevtoolsMcp(cdpUrl);
  let pageId = 0;
  return {
    open: async (url) => {
      if (pageId) await call(client, "navigate_page", { pageId, type: "url", url });
      else pageId = await newChromeDevtoolsPage(client, url);
    },
    snapshot: async () => whole(await call(client, "take_snapshot", { pageId })),
    toolsListChars: () => toolsListChars(client),
    click: async (snapshot) => void (await call(client, "click", { pageId, uid: refIn(snapshot, /uid=(\S+) button "Click target"/) })),
    screenshot: async () => void (await call(client, "take_screenshot", { pageId })),
    close: () => client.close(),
  };
}

/** The steps whose time is mostly Chrome's own: raw CDP gives the floor no MCP server can go under. */
const FLOOR_STEPS = ["load the page", "screenshot"] as const;
type FloorStep = (typeof FLOOR_STEPS)[number];

/**
 * Raw CDP on one browser connection and one tab: the page loaded (to its load event), then a viewport png capture of
 * the drawn, idle page, encoded for speed as chrome-devtools-mcp and tabwire's MCP front ask.
 */
class RawCdpFloor {
  #cdp: WsCaller;
  #sessionId: string | undefined;
  #contextId: string | undefined;

  private constructor(cdp: WsCaller) {
    this.#cdp = cdp;
  }

  static async open(cdpUrl: string): Promise<RawCdpFloor> {
    return new RawCdpFloor(await WsCaller.open(cdpUrl));
  }

  async run(url: string): Promise<Record<FloorStep, number>> {
    if (!this.#sessionId) {
      // A context (so a window) of its own: a tab in the default one would hide chrome-devtools-mcp's page.
      this.#contextId = ((await this.#send("Target.createBrowserContext", {})) as { browserContextId: string }).browserContextId;
      const created = await this.#send("Target.createTarget", { url: "about:blank", browserContextId: this.#contextId });
      const { targetId } = created as { targetId: string };
      this.#sessionId = ((await this.#send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string }).sessionId;
      await this.#send("Page.enable", {}, this.#sessionId);
    }
    const sessionId = this.#sessionId;
    const began = performance.now();
    let stop = (): void => {};
    let timer: NodeJS.Timeout | undefined;
    const loaded = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`raw CDP: no load event for ${url} within ${LOAD_TIMEOUT_MS} ms`)), LOAD_TIMEOUT_MS);
      stop = this.#cdp.onEvent((event) => {
        if (event.method === "Page.loadEventFired" && event.sessionId === sessionId) resolve();
      });
    });
    try {
      await this.#send("Page.navigate", { url }, sessionId);
      await loaded;
    } finally {
      stop();
      clearTimeout(timer);
    }
    const opened = performance.now();
    // The floor is a capture of a page drawn and idle: a first capture draws it, then nothing happens for a while
    // (a capture right after other work waits a frame or two more, as the agents' captures after a snapshot do).
    await this.#send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true }, sessionId);
    await sleep(IDLE_BEFORE_CAPTURE_MS);
    const drawn = performance.now();
    await this.#send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true }, sessionId);
    return { "load the page": opened - began, screenshot: performance.now() - drawn };
  }

  async close(): Promise<void> {
    if (this.#contextId) await this.#send("Target.disposeBrowserContext", { browserContextId: this.#contextId }).catch(() => undefined);
    await this.#cdp.close();
  }

  async #send(method: string, params: Record<string, unknown>, sessionId?: string): Promise<unknown> {
    const answer = await answered(this.#cdp.send({ method, params, ...(sessionId ? { sessionId } : {}) }));
    return answer.result;
  }
}

function whole(text: string): Snapshot {
  return { text, readChars: text.length };
}

function cursorIn(page: string): string | undefined {
  return /\(more of this snapshot: call snapshot with cursor "([^"]+)"\)$/.exec(page)?.[1];
}

function refIn(snapshot: string, pattern: RegExp): string {
  const ref = pattern.exec(snapshot)?.[1];
  if (!ref) throw new Error(`no "Click target" button in the snapshot: ${snapshot.slice(0, 300)}`);
  return ref;
}
