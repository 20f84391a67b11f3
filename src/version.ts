/** The hub's version: the protocol version agents are told in welcome, and what the HTTP API, MCP and HAR documents report. */
export const HUB_VERSION = "1.0.0";
