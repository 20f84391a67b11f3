import { createRequire } from "node:module";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { PAGE_COMMANDS } from "../../src/cdp-front/cdp-rules.js";
import { collect } from "../support/collect.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { RawCdp } from "../support/raw-cdp.js";
import { closeTab, openTab } from "../support/tabs.js";
import { connect, startTestHub } from "../support/test-hub.js";

const FULL_TOKEN = "cdp-attacks-full-token";
const ALPHA_TOKEN = "cdp-attacks-token-alpha";
const BETA_TOKEN = "cdp-attacks-token-beta";
const MAX_DOWNLOAD_BYTES = 1024 * 1024;

/** Every command of the protocol Chrome speaks, as `Domain.command`. */
function everyCommand(): string[] {
  const require = createRequire(import.meta.url);
  const domains = [
    ...(require("devtools-protocol/json/browser_protocol.json") as { domains: { domain: string; commands?: { name: string }[] }[] })
      .domains,
    ...(require("devtools-protocol/json/js_protocol.json") as { domains: { domain: string; commands?: { name: string }[] }[] }).domains,
  ];
  return domains.flatMap(({ domain, commands = [] }) => commands.map(({ name }) => `${domain}.${name}`));
}

// What a browser-level caller may send (the proxy answers them itself or keeps them to the client's context).
const BROWSER_ALLOWED = new Set([
  "Browser.getVersion",
  "Browser.close",
  "Browser.getWindowForTarget",
  "Browser.getWindowBounds",
  "Browser.setWindowBounds",
  "Browser.setContentsSize",
  "Browser.setDownloadBehavior",
  "Browser.grantPermissions",
  "Browser.resetPermissions",
  "Browser.setPermission",
  "Browser.cancelDownload",
  "Storage.getCookies",
  "Storage.setCookies",
  "Storage.clearCookies",
  "Target.getTargets",
  "Target.getTargetInfo",
  "Target.getBrowserContexts",
  "Target.setDiscoverTargets",
  "Target.setAutoAttach",
  "Target.createTarget",
  "Target.attachToTarget",
  "Target.detachFromTarget",
  "Target.activateTarget",
  "Target.closeTarget",
  "Target.createBrowserContext",
  "Target.disposeBrowserContext",
]);

/** Opens a page of the connection's client, attaches to it and, given a URL, loads it there: its target and session. */
async function ownPage(raw: RawCdp, url?: string): Promise<{ targetId: string; sessionId: string }> {
  const created = await raw.send("Target.createTarget", { url: "about:blank" });
  const { targetId } = created.result as { targetId: string };
  const attached = await raw.send("Target.attachToTarget", { targetId, flatten: true });
  const { sessionId } = attached.result as { sessionId: string };
  if (url !== undefined) {
    await raw.send("Page.enable", {}, sessionId);
    const loaded = raw.event((event) => event.method === "Page.loadEventFired" && event.sessionId === sessionId);
    await raw.send("Page.navigate", { url }, sessionId);
    await loaded;
  }
  return { targetId, sessionId };
}

/** A script that downloads `bytes` zero bytes as `name` from the page it runs in. */
const downloadScript = (bytes: number, name: string): string =>
  `{ const a = document.createElement("a"); a.href = URL.createObjectURL(new Blob([new Uint8Array(${bytes})]));` +
  ` a.download = ${JSON.stringify(name)}; document.body.append(a); a.click(); }`;

describe("/cdp under attack: an allowlist of commands, emulated downloads, no trace of others, quotas (real hub, real Chromium)", function () {
  this.timeout(90_000);
  let hub: Hub;
  let site: FixtureServer;

  before(async () => {
    site = await startFixtureServer();
    hub = await startTestHub({
      HUB_TOKEN: FULL_TOKEN,
      HUB_TOKENS: `${ALPHA_TOKEN}:alpha,${BETA_TOKEN}:beta`,
      AUTH_KEY: "cdp-attacks-agent-key",
      MAX_TABS_PER_CLIENT: "3",
      MAX_EPHEMERAL_CLIENTS_PER_TOKEN: "2",
      MAX_DOWNLOAD_BYTES: String(MAX_DOWNLOAD_BYTES),
    });
  });
  after(async () => {
    await hub?.stop();
    await site?.close();
  });

  const cdpUrl = (query = ""): string => `${hub.url}/cdp${query}`;

  async function closeAllTabs(token: string): Promise<void> {
    const rpc = await connect(hub, { token });
    const { tabs } = (await rpc.call("tabs.list", {})) as { tabs: { target: string }[] };
    await Promise.all(tabs.map((tab) => closeTab(rpc, tab.target)));
    await rpc.close();
  }

  it("a drag carrying the hub machine's files is refused, and the page's drop gets no file; a drag with data only still works", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    try {
      const { sessionId } = await ownPage(alpha, site.url("form.html"));
      await alpha.send(
        "Runtime.evaluate",
        {
          expression:
            "window.dropped = []; document.addEventListener('dragover', (e) => e.preventDefault());" +
            "document.addEventListener('drop', (e) => { e.preventDefault(); window.dropped.push(e.dataTransfer.files.length, e.dataTransfer.getData('text/plain')); });",
        },
        sessionId,
      );
      const at = { x: 20, y: 20 };
      for (const path of ["/etc/passwd", "/", process.cwd()]) {
        const data = { items: [], files: [path], dragOperationsMask: 1 };
        for (const type of ["dragEnter", "dragOver", "drop"]) {
          const answer = await alpha.send("Input.dispatchDragEvent", { type, ...at, data }, sessionId);
          expect(answer.error, `${type} with ${path}`).to.deep.include({ code: -32000 });
          expect(String((answer.error as { message: string }).message)).to.match(/refuses/);
        }
      }
      const items = [{ mimeType: "text/plain", data: "hello" }];
      for (const type of ["dragEnter", "dragOver", "drop"]) {
        const answer = await alpha.send("Input.dispatchDragEvent", { type, ...at, data: { items, dragOperationsMask: 1 } }, sessionId);
        expect(answer.error, type).to.equal(undefined);
      }
      const dropped = await alpha.send("Runtime.evaluate", { expression: "window.dropped", returnByValue: true }, sessionId);
      expect((dropped.result as { result: { value: unknown } }).result.value).to.deep.equal([0, "hello"]);
    } finally {
      alpha.close();
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("every command outside the allowlist is refused, on a page's session and at the browser level, and the connection goes on", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    try {
      const { sessionId } = await ownPage(alpha);
      const commands = everyCommand();
      const onPage = commands.filter((method) => !PAGE_COMMANDS.has(method) && !BROWSER_ALLOWED.has(method));
      const atBrowser = commands.filter((method) => !BROWSER_ALLOWED.has(method));
      expect(onPage).to.include.members([
        "DOM.setFileInputFiles",
        "Tracing.start",
        "Network.loadNetworkResource",
        "Page.setDownloadBehavior",
        "Extensions.loadUnpacked",
      ]);
      const notRefused: string[] = [];
      const check = async (method: string, session?: string): Promise<void> => {
        const answer = await alpha.send(method, {}, session);
        if (!/refuses/.test(String((answer.error as { message?: string } | undefined)?.message)))
          notRefused.push(`${method} ${session ? "on a page" : "at the browser"}`);
      };
      for (const method of onPage) await check(method, sessionId);
      for (const method of atBrowser) await check(method);
      expect(notRefused).to.deep.equal([]);
      expect(alpha.isOpen).to.equal(true);
      const version = await alpha.send("Browser.getVersion");
      expect(version.result).to.have.property("product");
    } finally {
      alpha.close();
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("IO reads only the streams this connection was handed: a guessed handle is refused, its own PDF stream is read", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    try {
      const { sessionId } = await ownPage(alpha, site.url("form.html"));
      for (const handle of ["1", "2", "3", "blob:00000000-0000-0000-0000-000000000000"]) {
        const guessed = await alpha.send("IO.read", { handle }, sessionId);
        expect(guessed.error, handle).to.deep.include({ code: -32602 });
      }
      const printed = await alpha.send("Page.printToPDF", { transferMode: "ReturnAsStream" }, sessionId);
      const { stream } = printed.result as { stream: string };
      const chunk = await alpha.send("IO.read", { handle: stream, size: 8 }, sessionId);
      const { data, base64Encoded } = chunk.result as { data: string; base64Encoded?: boolean };
      expect(base64Encoded ? Buffer.from(data, "base64").toString("latin1") : data).to.match(/^%PDF/);
      expect((await alpha.send("IO.close", { handle: stream }, sessionId)).error).to.equal(undefined);
      expect((await alpha.send("IO.read", { handle: stream }, sessionId)).error).to.deep.include({ code: -32602 });
    } finally {
      alpha.close();
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("alpha's Browser.setDownloadBehavior leaves beta's downloads tracked and capped; alpha hears of its own downloads only, and 'deny' cancels them", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    const alphaRpc = await connect(hub, { token: ALPHA_TOKEN });
    const beta = await connect(hub, { token: BETA_TOKEN });
    const betaTab = await openTab(beta, site.url("form.html"));
    try {
      await Promise.all([
        alphaRpc.call("events.subscribe", { topics: ["downloads"] }),
        beta.call("events.subscribe", { topics: ["downloads"] }),
      ]);
      // As the attack did it: no eventsEnabled, which on the hub's own browser session would silence every client's downloads.
      const set = await alpha.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: "/tmp/alpha-wants-files-here" });
      expect(set).to.deep.include({ result: {} });
      // beta's 5 MB download is tracked and cancelled at MAX_DOWNLOAD_BYTES, as if alpha had done nothing.
      const betaFinished = collect<{ state: string; reason?: string }>(beta, "download.finished", { done: (all) => all.length > 0 });
      await beta.call("evaluate", { target: betaTab.target, expression: downloadScript(5 * MAX_DOWNLOAD_BYTES, "big.bin") });
      const [capped] = await betaFinished;
      expect(capped?.state).to.equal("canceled");
      expect(capped?.reason).to.match(/MAX_DOWNLOAD_BYTES/);
      const { downloads } = (await beta.call("downloads.list", {})) as { downloads: { filename: string }[] };
      expect(downloads.map((download) => download.filename)).to.include("big.bin");
      // alpha's own download: told to alpha's connection when it asks for events, tracked by the hub in alpha's folder.
      await alpha.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: "/tmp/alpha", eventsEnabled: true });
      const { sessionId, targetId } = await ownPage(alpha, site.url("form.html"));
      const alphaFinished = collect<{ state: string; downloadId: string }>(alphaRpc, "download.finished", {
        done: (all) => all.length > 0,
      });
      await alpha.send("Runtime.evaluate", { expression: downloadScript(1000, "small.bin"), userGesture: true }, sessionId);
      const began = await alpha.event((event) => event.method === "Browser.downloadWillBegin");
      expect((began.params as { frameId: string }).frameId).to.equal(targetId);
      const [done] = await alphaFinished;
      expect(done?.state).to.equal("completed");
      expect(alpha.events.filter((event) => JSON.stringify(event).includes("big.bin"))).to.deep.equal([]);
      // "deny": the client's next download is cancelled while this connection lasts.
      await alpha.send("Browser.setDownloadBehavior", { behavior: "deny" });
      const denied = collect<{ state: string }>(alphaRpc, "download.finished", { done: (all) => all.length > 0 });
      await alpha.send("Runtime.evaluate", { expression: downloadScript(1000, "denied.bin"), userGesture: true }, sessionId);
      // The hub (in this process) held up for a second, as on a slow day: a "deny" that relied on the hub cancelling a
      // download once it heard of it would let this small one complete meanwhile.
      for (const heldUntil = Date.now() + 1_000; Date.now() < heldUntil;) {
        // Nothing: the event loop is held.
      }
      expect((await denied)[0]?.state).to.equal("canceled");
      expect((await alpha.send("Browser.setDownloadBehavior", { behavior: "everything" })).error).to.deep.include({ code: -32602 });
    } finally {
      alpha.close();
      await closeTab(beta, betaTab.target);
      await Promise.all([alphaRpc.close(), beta.close()]);
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("Tracing is refused on alpha's own page and at the browser level, so no trace records another client's navigations", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    try {
      const { sessionId } = await ownPage(alpha);
      for (const session of [sessionId, undefined]) {
        const answer = await alpha.send("Tracing.start", { categories: "browser,navigation", transferMode: "ReturnAsStream" }, session);
        expect(String((answer.error as { message?: string } | undefined)?.message)).to.match(/refuses Tracing.start/);
      }
    } finally {
      alpha.close();
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("Target.createTarget keeps to MAX_TABS_PER_CLIENT, asked one by one or all at once", async () => {
    const alpha = await RawCdp.open(cdpUrl(), ALPHA_TOKEN);
    const rpc = await connect(hub, { token: ALPHA_TOKEN });
    const count = async (): Promise<number> => ((await rpc.call("tabs.list", {})) as { tabs: unknown[] }).tabs.length;
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await alpha.send("Target.createTarget", { url: "about:blank" }));
      expect(answers.filter((answer) => answer.result !== undefined)).to.have.length(3);
      expect(String((answers[3]!.error as { message: string }).message)).to.match(/MAX_TABS_PER_CLIENT=3/);
      expect(await count()).to.equal(3);
      await closeAllTabs(ALPHA_TOKEN);
      const atOnce = await Promise.all(Array.from({ length: 8 }, () => alpha.send("Target.createTarget", { url: "about:blank" })));
      expect(atOnce.filter((answer) => answer.result !== undefined).length).to.be.at.most(3);
      expect(await count()).to.be.at.most(3);
    } finally {
      alpha.close();
      await rpc.close();
      await closeAllTabs(ALPHA_TOKEN);
    }
  });

  it("a token holds at most MAX_EPHEMERAL_CLIENTS_PER_TOKEN ephemeral clients (429 past it); another token is not held back; a closed one gives its place back", async () => {
    const held = [await RawCdp.open(cdpUrl("?ephemeral=true"), ALPHA_TOKEN), await RawCdp.open(cdpUrl("?ephemeral=true"), ALPHA_TOKEN)];
    try {
      const third = await RawCdp.open(cdpUrl("?ephemeral=true"), ALPHA_TOKEN).then(
        (raw) => (raw.close(), "opened"),
        (error: Error) => error.message,
      );
      expect(third).to.equal("HTTP 429");
      const betas = [await RawCdp.open(cdpUrl("?ephemeral=true"), BETA_TOKEN)];
      betas.forEach((raw) => raw.close());
      held.shift()!.close();
      await eventually(
        () =>
          RawCdp.open(cdpUrl("?ephemeral=true"), ALPHA_TOKEN).then((raw) => {
            held.push(raw);
            return true;
          }),
        10_000,
        "an ephemeral place given back",
      );
    } finally {
      held.forEach((raw) => raw.close());
    }
  });
});
