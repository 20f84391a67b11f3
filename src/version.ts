/** The hub's version: the protocol version agents are told in welcome, and what the HTTP API, MCP and HAR documents report. */
export const HUB_VERSION = "1.0.0";

/** How long the hub's process has run, in whole milliseconds (/health, /status and hub.stats report it). */
export function uptimeMs(): number {
  return Math.round(process.uptime() * 1000);
}
