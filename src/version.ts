import { readFileSync } from "node:fs";

// package.json is the one home of the product's version: read from the installed package (dist/src/ is two folders
// below it, in a clone and in an npm install alike), so a release changes one line.
const PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** The product's version, package.json's: what `tabwire --version`, /status, the MCP server info and HAR files report. */
export const HUB_VERSION = (JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string }).version;

/**
 * The version of the protocol (docs/protocol.md, the OpenRPC document's info.version) told to agents in `welcome`:
 * it changes when the wire does, not with every release, as Browser Operator's agents expect.
 */
export const PROTOCOL_VERSION = "1.0.0";

/** How long the hub's process has run, in whole milliseconds (/health, /status and hub.stats report it). */
export function uptimeMs(): number {
  return Math.round(process.uptime() * 1000);
}
