// An orchestrator on the typed client: opens a tab on a page, reads its snapshot, clicks its first link as a user
// would and reads where that led. With a hub running (npm start): node examples/orchestrator.mjs
// TABWIRE_URL (default ws://127.0.0.1:8080) and TABWIRE_TOKEN say which hub and token, PAGE_URL which page.
import { TabwireClient } from "tabwire/client";

const page = process.env.PAGE_URL || "https://example.com/";
const hub = await TabwireClient.connect({
  url: process.env.TABWIRE_URL || "ws://127.0.0.1:8080",
  token: process.env.TABWIRE_TOKEN || undefined,
  reconnect: false,
});
try {
  const { target } = await hub.call("tabs.open", { url: page });
  // The interactive elements only, one line each, with the ref an action takes: - link "Learn more" [ref=e5]
  const { text } = await hub.call("snapshot", { target, interactiveOnly: true });
  console.log(text);
  const [line, ref] = /- link .*\[ref=(e\d+)\]/.exec(text) ?? [];
  if (ref === undefined) throw new Error(`${page} has no link to click`);
  // Trusted mouse input, once the link is visible, stable and not covered; the answer says what it set off.
  const clicked = await hub.click({ target, ref });
  console.log(`clicked ${line.trim()}: ${JSON.stringify(clicked)}`);
  await hub.waitFor({ target, loadState: "load" });
  const { value } = await hub.evaluate({ target, expression: "({ url: location.href, title: document.title })" });
  console.log(`now on ${value.url}: "${value.title}"`);
  await hub.call("tabs.close", { target });
} finally {
  await hub.close();
}
