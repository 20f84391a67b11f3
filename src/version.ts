/** The hub's version, as /health, the HTTP API, MCP and HAR documents report it. */
export const HUB_VERSION = "1.0.0";
