import type { IncomingMessage, ServerResponse } from "node:http";
import type { ClientTools } from "./client-tools.js";

/** One HTTP exchange at /mcp, its JSON body already read (undefined for GET and DELETE). */
export interface McpExchange {
  request: IncomingMessage;
  response: ServerResponse;
  body: unknown;
  /** The groups of tools beyond the default ones the /mcp URL asks for (`?caps=`). */
  caps: ReadonlySet<string>;
}

/** A client's tools opened for a session or a 2026-07-28 client, and the function that gives its /metrics count back. */
export interface OpenedClient {
  tools: ClientTools;
  uncount: () => void;
}
