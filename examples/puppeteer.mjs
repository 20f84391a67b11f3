// An existing Puppeteer script on the hub instead of a local Chrome: it connects to /cdp as one client of the hub,
// whose pages are tabs of the hub too (callable over /rpc and MCP). With a hub running (npm start) and puppeteer-core
// installed: node examples/puppeteer.mjs
// TABWIRE_URL (default ws://127.0.0.1:8080) and TABWIRE_TOKEN say which hub and token, PAGE_URL which page.
import puppeteer from "puppeteer-core";

const page = process.env.PAGE_URL || "https://example.com/";
const hub = (process.env.TABWIRE_URL || "ws://127.0.0.1:8080").replace(/\/rpc$/, "");
const token = process.env.TABWIRE_TOKEN;
const browser = await puppeteer.connect({
  browserWSEndpoint: `${hub}/cdp`,
  headers: token ? { Authorization: `Bearer ${token}` } : {},
  defaultViewport: null,
});
try {
  const tab = await browser.newPage();
  await tab.goto(page);
  console.log(`opened ${tab.url()}: "${await tab.title()}"`);
  await Promise.all([tab.waitForNavigation(), tab.click("a")]);
  console.log(`now on ${tab.url()}: "${await tab.title()}"`);
  await tab.close();
} finally {
  // disconnect, not close: the browser is the hub's, shared with its other clients.
  await browser.disconnect();
}
