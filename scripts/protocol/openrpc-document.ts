import { readFileSync } from "node:fs";
import type { McpEntry } from "../../src/mcp/tools.js";
import type { Schema } from "./schema-to-ts.js";

/** A method's param as the OpenRPC document lists it. */
export interface DocParam {
  name: string;
  description?: string;
  required?: boolean;
  schema: Schema;
}

/** An example call of a method. */
export interface DocExample {
  name: string;
  params: { name: string; value: unknown }[];
  result?: { name: string; value: unknown };
}

/** One method of the document. */
export interface DocMethod {
  name: string;
  summary?: string;
  description?: string;
  params: DocParam[];
  result: { name: string; schema: Schema };
  errors?: { $ref: string }[];
  examples?: DocExample[];
  /** Its group: one tag, naming the subsection of docs/protocol.md section 5 that lists it (`npm run gen` writes the table). */
  tags?: { name: string }[];
  /** How the method is offered as an MCP tool, with its texts for a model; absent: it is not one. */
  "x-mcp"?: McpEntry;
}

/** One notification the hub sends, from the document's `x-notifications`. */
export interface DocNotification {
  name: string;
  summary: string;
  description?: string;
  /** The methods whose calls make the hub send it. */
  "x-sentBy": string[];
  /** Who gets it unasked (no method makes the hub send it), e.g. every connection when the hub drains. */
  "x-sentTo"?: string;
  params: Schema;
}

/** The parts of the OpenRPC document the generators read. */
export interface OpenRpcDocument {
  info: { title: string; version: string; description: string };
  "x-conventions": Record<string, string>;
  /** The MCP tools' shared param texts; null: offered only where a tool's own `x-mcp.params` gives a text. */
  "x-mcp-params"?: Record<string, string | null>;
  methods: DocMethod[];
  "x-notifications": DocNotification[];
  components: { schemas: Record<string, Schema>; errors: Record<string, { code: number; message: string; "x-description"?: string }> };
}

/** The path of the document, from the repository's root. */
export const DOCUMENT_PATH = "protocol/tabwire.openrpc.json";

/** Reads the document from the repository at `root`. */
export function readDocument(root: string): OpenRpcDocument {
  return JSON.parse(readFileSync(`${root}/${DOCUMENT_PATH}`, "utf8")) as OpenRpcDocument;
}

/** The schema a param's `$ref` names, or the param's own. */
export function resolved(schema: Schema, doc: OpenRpcDocument): Schema {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  const target = doc.components.schemas[name];
  if (!target) throw new Error(`${schema.$ref} is not in components.schemas`);
  return target;
}
