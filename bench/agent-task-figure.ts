import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Figure } from "./figure.js";
import { connectChromeDevtoolsMcp, connectMcp, connectPlaywrightMcp, selectedPageId, toolsListChars, toolText } from "./mcp-peers.js";
import { serveShop, WANTED_PRODUCT } from "./shop-site.js";
import { median } from "./stats.js";

const ROUNDS = 3;
const SERVERS = ["tabwire", "playwrightMcp", "chromeDevtoolsMcp"] as const;
type ServerName = (typeof SERVERS)[number];
const SHOWN_NAMES: Record<ServerName, string> = {
  tabwire: "tabwire",
  playwrightMcp: "@playwright/mcp",
  chromeDevtoolsMcp: "chrome-devtools-mcp",
};

/** What an agent pays for a task on one server: the tool calls it made and the characters of their answers it read. */
class Meter {
  calls = 0;
  chars = 0;
  /** Each call's tool and answer size, for the breakdown on stderr. */
  readonly log: string[] = [];

  /** A tool's text, counted. */
  async call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
    const text = await toolText(client, name, args);
    this.calls += 1;
    this.chars += text.length;
    this.log.push(`${name} ${text.length}`);
    return text;
  }
}

/** One MCP server as the agent drives it: each method is what a model would call, and answers the text it reads. */
interface TaskServer {
  /** Loads the shop's first page in the agent's tab (a new one the first time, then the same one, as agents do). */
  open(url: string): Promise<string>;
  /** The page's snapshot as the server's defaults give it, every part of it read. */
  snapshot(): Promise<string>;
  /** The server's own form-fill tool. */
  fillForm(fields: { ref: string; name: string; value: string }[]): Promise<string>;
  click(ref: string, what: string): Promise<string>;
  /** The ref of the first element of this role and name in `text` (after `after`, when given), read as a model would. */
  refOf(text: string, element: { role: string; name: string; after?: string }): string | undefined;
  toolsListChars(): Promise<number>;
  close(): Promise<void>;
  meter: Meter;
}

/**
 * An agent's task on a small shop served on localhost, through tabwire's MCP front (Streamable HTTP), `@playwright/mcp`
 * and `chrome-devtools-mcp` (stdio, on the bench's Chromium): sign in, find "Blue Teapot" among 40 products, add it to
 * the cart and see that it was, check out, confirm, and see "Order confirmed". The agent uses what the last answers
 * gave it (refs read with regexes, as from a model's reading) and takes a snapshot only when they do not hold what it
 * needs next. Per server: calls, characters read, time (medians of three interleaved rounds after a warm-up one) and
 * the tools/list answer's characters.
 */
export async function agentTaskFigures(cdpUrl: string, hubUrl: string): Promise<Figure[]> {
  const shop = await serveShop();
  const servers: Record<ServerName, TaskServer> = {
    tabwire: await tabwireServer(hubUrl),
    playwrightMcp: await playwrightServer(cdpUrl),
    chromeDevtoolsMcp: await chromeDevtoolsServer(cdpUrl),
  };
  try {
    type Samples = { calls: number[]; chars: number[]; ms: number[] };
    const measured = Object.fromEntries(SERVERS.map((name) => [name, { calls: [], chars: [], ms: [] }])) as unknown as Record<
      ServerName,
      Samples
    >;
    for (let round = -1; round < ROUNDS; round++) {
      for (let i = 0; i < SERVERS.length; i++) {
        const name = SERVERS[(Math.max(round, 0) + i) % SERVERS.length] as ServerName;
        const server = servers[name];
        server.meter = new Meter();
        const began = performance.now();
        await runTask(server, shop.url);
        const ms = performance.now() - began;
        if (round < 0) continue;
        measured[name].calls.push(server.meter.calls);
        measured[name].chars.push(server.meter.chars);
        measured[name].ms.push(ms);
        if (round === ROUNDS - 1) process.stderr.write(`bench: agent task, ${SHOWN_NAMES[name]}: ${server.meter.log.join(", ")}\n`);
      }
    }
    const toolsLists = {} as Record<ServerName, number>;
    for (const name of SERVERS) toolsLists[name] = await servers[name].toolsListChars();
    const medians = (what: "calls" | "chars" | "ms"): Record<ServerName, number> =>
      Object.fromEntries(SERVERS.map((name) => [name, median(measured[name][what])])) as Record<ServerName, number>;
    return [
      taskFigure({ what: "characters read", unit: "chars", goal: "<= 0.5" }, medians("chars")),
      taskFigure({ what: "calls", unit: "calls", goal: "<= 1.0" }, medians("calls")),
      taskFigure({ what: "time", unit: "ms", goal: "<= 1.0" }, medians("ms")),
      taskFigure({ what: "tools/list characters", unit: "chars", goal: "(report)" }, toolsLists),
    ];
  } finally {
    for (const server of Object.values(servers)) await server.close().catch(() => undefined);
    await shop.close();
  }
}

/**
 * The task as an agent does it. `view` is what the agent has of the page in front of it, newest answer first: an
 * action's answer is added to it, a navigation starts it again; a snapshot replaces it.
 */
async function runTask(server: TaskServer, url: string): Promise<void> {
  let view = [await server.open(url)];
  const find = async (role: string, name: string, after?: string): Promise<string> => {
    const inView = (): string | undefined => view.map((text) => server.refOf(text, { role, name, after })).find(Boolean);
    let ref = inView();
    if (ref === undefined) {
      view = [await server.snapshot()];
      ref = inView();
    }
    if (ref === undefined) throw new Error(`agent task: no ${role} "${name}" on the page: ${view.join("\n").slice(0, 2_000)}`);
    return ref;
  };
  const see = async (pattern: RegExp): Promise<void> => {
    if (pattern.test(view[0] ?? "")) return;
    view = [await server.snapshot()];
    if (!pattern.test(view[0] ?? "")) throw new Error(`agent task: the page does not say ${pattern}: ${view[0]?.slice(0, 2_000)}`);
  };
  const email = await find("textbox", "Email");
  const password = await find("textbox", "Password");
  const signIn = await find("button", "Sign in");
  view.unshift(
    await server.fillForm([
      { ref: email, name: "Email", value: "ada@example.com" },
      { ref: password, name: "Password", value: "correct horse" },
    ]),
  );
  view = [await server.click(signIn, "Sign in button")];
  const add = await find("button", "Add to cart", WANTED_PRODUCT);
  view.unshift(await server.click(add, `${WANTED_PRODUCT}'s Add to cart button`));
  await see(new RegExp(`Added ${WANTED_PRODUCT}`));
  view = [await server.click(await find("link", "Check out"), "Check out link")];
  view = [await server.click(await find("button", "Confirm order"), "Confirm order button")];
  await see(/Order confirmed/);
}

function taskFigure({ what, unit, goal }: { what: string; unit: string; goal: string }, values: Record<ServerName, number>): Figure {
  const [playwright, devtools] = [values.playwrightMcp, values.chromeDevtoolsMcp];
  const better = what === "time" ? "faster" : what === "calls" ? "fewer" : "leaner";
  const shown = (n: number): string => (unit === "ms" ? `${n.toFixed(0)} ms` : `${n}`);
  return {
    name: `MCP agent task on a shop (sign in, find one of 40 products, add to cart, check out, confirm), ${what}: tabwire / the ${better} of @playwright/mcp (${shown(playwright)}) and chrome-devtools-mcp (${shown(devtools)})`,
    label: `MCP task ${what} vs the ${better} peer`,
    unit,
    hub: values.tabwire,
    alternative: Math.min(playwright, devtools),
    ratio: values.tabwire / Math.min(playwright, devtools),
    goal,
  };
}

/** `role "name" ... [ref=X]` on one line, as tabwire's and @playwright/mcp's snapshots write an element. */
function bracketRef(text: string, { role, name, after }: { role: string; name: string; after?: string }): string | undefined {
  const from = after === undefined ? 0 : text.indexOf(after);
  if (from < 0) return undefined;
  return new RegExp(`${role} "${name}"[^\\n]*?\\[ref=([\\w-]+)\\]`).exec(text.slice(from))?.[1];
}

async function tabwireServer(hubUrl: string): Promise<TaskServer> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", hubUrl.replace(/^ws/, "http")));
  const client = await connectMcp(transport);
  let target = "";
  const server: TaskServer = {
    meter: new Meter(),
    open: async (url) => {
      if (target) return server.meter.call(client, "navigate", { target, url });
      const opened = await server.meter.call(client, "tabs_open", { url });
      target = (JSON.parse(/^\{.*\}$/m.exec(opened)?.[0] ?? "{}") as { target: string }).target;
      return opened;
    },
    // A long page comes in parts: the agent reads on with the cursor each part names.
    snapshot: async () => {
      const parts = [await server.meter.call(client, "snapshot", { target })];
      for (let cursor = cursorIn(parts.at(-1)!); cursor; cursor = cursorIn(parts.at(-1)!)) {
        parts.push(await server.meter.call(client, "snapshot", { target, cursor }));
      }
      return parts.join("\n");
    },
    fillForm: (fields) => server.meter.call(client, "fillForm", { target, fields: fields.map(({ ref, value }) => ({ ref, value })) }),
    click: (ref) => server.meter.call(client, "click", { target, ref }),
    refOf: bracketRef,
    toolsListChars: () => toolsListChars(client),
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
  return server;
}

async function playwrightServer(cdpUrl: string): Promise<TaskServer> {
  const { client, close } = await connectPlaywrightMcp(cdpUrl);
  const server: TaskServer = {
    meter: new Meter(),
    open: (url) => server.meter.call(client, "browser_navigate", { url }),
    snapshot: () => server.meter.call(client, "browser_snapshot", {}),
    fillForm: (fields) =>
      server.meter.call(client, "browser_fill_form", {
        fields: fields.map(({ ref, name, value }) => ({ target: ref, name, type: "textbox", value })),
      }),
    click: (ref, what) => server.meter.call(client, "browser_click", { element: what, target: ref }),
    refOf: bracketRef,
    toolsListChars: () => toolsListChars(client),
    close,
  };
  return server;
}

/** chrome-devtools-mcp, its clicks with `includeSnapshot: true` (what saves an agent a snapshot call after each). */
async function chromeDevtoolsServer(cdpUrl: string): Promise<TaskServer> {
  const client = await connectChromeDevtoolsMcp(cdpUrl);
  let pageId = 0;
  const server: TaskServer = {
    meter: new Meter(),
    open: async (url) => {
      if (pageId) return server.meter.call(client, "navigate_page", { pageId, type: "url", url });
      const pages = await server.meter.call(client, "new_page", { url });
      pageId = selectedPageId(pages);
      return pages;
    },
    snapshot: () => server.meter.call(client, "take_snapshot", { pageId }),
    fillForm: (fields) =>
      server.meter.call(client, "fill_form", { pageId, elements: fields.map(({ ref, value }) => ({ uid: ref, value })) }),
    click: (uid) => server.meter.call(client, "click", { pageId, uid, includeSnapshot: true }),
    refOf: (text, { role, name, after }) => {
      const from = after === undefined ? 0 : text.indexOf(after);
      if (from < 0) return undefined;
      return new RegExp(`uid=(\\S+) ${role} "${name}"`).exec(text.slice(from))?.[1];
    },
    toolsListChars: () => toolsListChars(client),
    close: () => client.close(),
  };
  return server;
}

function cursorIn(part: string): string | undefined {
  return /\(more of this snapshot: call snapshot with cursor "([^"]+)"\)$/.exec(part)?.[1];
}
