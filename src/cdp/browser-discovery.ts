import { HubError } from "../errors.js";

const DISCOVERY_TIMEOUT_MS = 5_000;

/** Turns CDP_URL into the browser-level WebSocket address: a ws URL as it is, an http one through /json/version. */
export async function discoverBrowserWsUrl(cdpUrl: string): Promise<string> {
  const url = new URL(cdpUrl);
  if (url.protocol === "ws:" || url.protocol === "wss:") return cdpUrl;
  const versionUrl = new URL("/json/version", url);
  let body: unknown;
  try {
    const response = await fetch(versionUrl, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = await response.json();
  } catch (error) {
    throw new HubError("BROWSER_UNAVAILABLE", `cannot read ${versionUrl.href}: ${(error as Error).message}`);
  }
  const wsUrl = (body as { webSocketDebuggerUrl?: unknown } | null)?.webSocketDebuggerUrl;
  if (typeof wsUrl !== "string") {
    throw new HubError("BROWSER_UNAVAILABLE", `${versionUrl.href} has no webSocketDebuggerUrl; is it a Chrome DevTools endpoint?`);
  }
  return wsUrl;
}
