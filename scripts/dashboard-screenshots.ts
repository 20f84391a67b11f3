// Makes the README's dashboard screenshots from a real run: a hub on an embedded Chromium, two clients with tabs on
// pages served here, an agent on one of them, and the dashboard signed in from a second Chromium.
// npm run screenshots writes docs/images/dashboard-overview.png and docs/images/dashboard-tab.png.
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Page } from "puppeteer-core";
import WebSocket from "ws";
import { launchChromeWithPort, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import { parseConfig } from "../src/config.js";
import { startHub } from "../src/hub.js";
import { configureLogging } from "../src/log.js";
import { WsCaller } from "../bench/ws-caller.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OUT = path.join(ROOT, "docs", "images");
const TOKEN = "screenshot-token";
const AGENT_KEY = "screenshot-agent-key";

const PAGES: Record<string, string> = {
  "/shop": `<!doctype html><title>Checkout · Demo shop</title><body style="font:16px system-ui;margin:0">
<header style="background:#1f3a5f;color:#fff;padding:14px 24px;font-size:20px">Demo shop</header>
<main style="padding:24px;max-width:640px"><h1>Your basket</h1>
<p>Espresso beans, 1 kg <b style="float:right">€24.00</b></p><p>Milk frother <b style="float:right">€39.00</b></p>
<label>Email <input id="email" placeholder="you@example.com" style="font:inherit;padding:6px;width:100%"></label>
<p><button id="pay" style="font:inherit;padding:10px 24px;background:#2e7d32;color:#fff;border:0;border-radius:4px">Pay €63.00</button></p>
</main><script>console.log("basket loaded", 2, "items"); console.info("prices in EUR");
console.warn("coupon field is deprecated"); fetch("/api/stock").then(() => console.log("stock checked"));
document.getElementById("pay").onclick = () => console.error("payment declined: test card");</script></body>`,
  "/search": `<!doctype html><title>Flights to Lisbon · Demo travel</title><body style="font:16px system-ui;margin:0;background:#f4f6fb">
<header style="background:#6a1b9a;color:#fff;padding:14px 24px;font-size:20px">Demo travel</header>
<main style="padding:24px"><h1>Flights to Lisbon</h1><ol><li>08:10 → 10:45 · €89</li><li>13:30 → 16:05 · €112</li>
<li>19:55 → 22:30 · €74</li></ol></main></body>`,
  "/news": `<!doctype html><title>Morning briefing · Demo news</title><body style="font:16px Georgia,serif;margin:0">
<header style="background:#b71c1c;color:#fff;padding:14px 24px;font-size:20px">Demo news</header>
<main style="padding:24px;max-width:700px"><h1>Morning briefing</h1><p>Markets opened higher on Tuesday.</p></main></body>`,
  "/api/stock": `{"inStock":true}`,
};

function servePages(): Promise<{ url: (page: string) => string; close: () => void }> {
  const server = http.createServer((request, response) => {
    const body = PAGES[request.url ?? ""];
    response.writeHead(body ? 200 : 404, {
      "content-type": request.url?.startsWith("/api/") ? "application/json" : "text/html; charset=utf-8",
    });
    response.end(body ?? "not found");
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: (page) => `http://127.0.0.1:${port}${page}`, close: () => server.close() });
    });
  });
}

/** Registers an agent for a tab, as a DevTools agent would, and says ready. */
function registerAgent(hubUrl: string, target: string): Promise<WebSocket> {
  const ws = new WebSocket(`${hubUrl}/agent?token=${AGENT_KEY}`);
  return new Promise((resolve, reject) => {
    ws.on("message", (data) => {
      const frame = JSON.parse((data as Buffer).toString("utf8")) as { type?: string; status?: string };
      if (frame.type === "welcome") ws.send(JSON.stringify({ type: "register", clientId: target, capabilities: { tools: ["chat"] } }));
      if (frame.type === "registration_ack" && frame.status === "accepted") {
        ws.send(JSON.stringify({ type: "ready" }));
        resolve(ws);
      }
    });
    ws.once("error", reject);
  });
}

async function call(rpc: WsCaller, method: string, params: object): Promise<Record<string, unknown>> {
  const answer = await rpc.send({ jsonrpc: "2.0", method, params });
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result as Record<string, unknown>;
}

async function shoot(page: Page, name: string): Promise<void> {
  const file = path.join(OUT, name);
  await page.screenshot({ path: file as `${string}.png` });
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const config = parseConfig({
    PORT: "0",
    LOG_LEVEL: "warn",
    LOG_DIR: path.join(os.tmpdir(), "tabwire-screenshots"),
    HUB_TOKEN: TOKEN,
    AUTH_KEY: AGENT_KEY,
  });
  configureLogging(config);
  const hub = await startHub(config);
  const pages = await servePages();
  const viewer = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), ["--headless=new"]);
  const rpc = await WsCaller.open(`${hub.url}/rpc?token=${TOKEN}`);
  let agent: WebSocket | undefined;
  try {
    // The embedded Chromium's first tab (DEFAULT_CLIENT_ID's about:blank) would be a card of its own.
    const { tabs } = (await call(rpc, "tabs.list", {})) as { tabs: { target: string }[] };
    for (const { target } of tabs) await call(rpc, "tabs.close", { target });
    const shop = await call(rpc, "tabs.open", { clientId: "checkout-eval", url: pages.url("/shop") });
    await call(rpc, "tabs.open", { clientId: "checkout-eval", url: pages.url("/news") });
    const search = await call(rpc, "tabs.open", { clientId: "travel-agent", url: pages.url("/search") });
    agent = await registerAgent(hub.url, String(search.target));
    const browser = await puppeteer.connect({ browserWSEndpoint: viewer.wsUrl, defaultViewport: { width: 1280, height: 860 } });
    const page = await browser.newPage();
    const base = hub.url.replace(/^ws/, "http");
    await page.goto(`${base}/ui`);
    await page.type("#token", TOKEN);
    await page.click("#sign-in");
    await page.waitForFunction(`[...document.querySelectorAll("img.thumb")].filter((img) => img.naturalWidth > 0).length >= 3`, {
      timeout: 30_000,
    });
    await page.waitForFunction(`document.querySelector('[data-stat="calls"]')?.textContent?.trim()`, { timeout: 10_000 });
    await shoot(page, "dashboard-overview.png");
    await page.goto(`${base}/ui#/tab/${encodeURIComponent(String(shop.target))}`);
    await page.waitForFunction(`Number(document.querySelector("#live")?.getAttribute("data-frames")) > 0`, { timeout: 30_000 });
    await call(rpc, "click", { target: shop.target, selector: "#pay" });
    await page.waitForFunction(`document.querySelectorAll("#console li").length >= 5`, { timeout: 10_000 });
    await page.waitForFunction(`document.querySelector("#snapshot")?.textContent?.includes("ref=")`, { timeout: 10_000 });
    await shoot(page, "dashboard-tab.png");
    await browser.disconnect();
  } finally {
    agent?.close();
    await rpc.close();
    await viewer.kill();
    await hub.stop();
    pages.close();
  }
}

await main();
