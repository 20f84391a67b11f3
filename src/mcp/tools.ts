import type { JSONObject } from "@modelcontextprotocol/server";
import type { OpenRpcDocument } from "../rpc/params-validator.js";
import { MCP_DEFAULTS } from "./tool-results.js";

/**
 * A method's `x-mcp` entry in the OpenRPC document: how it behaves as an MCP tool, and its texts for a model (the
 * method's own summary and descriptions are written for `/rpc` callers and stay there).
 */
export interface McpEntry {
  /** It only reads (the page, the hub's state): calling it changes nothing. */
  readOnly: boolean;
  /** It may change or lose what is there (a form sent, a page left), beyond adding to it. */
  destructive?: boolean;
  /** A few words for a client's list of tools. */
  title: string;
  /** What the tool does, for a model. */
  description: string;
  /** A param's text for a model, where the document's shared one (`x-mcp-params`) does not fit. */
  params?: Record<string, string>;
  /** Params the tool does not offer (the session's client is implied, or the answer has no room for them). */
  hide?: string[];
  /** The group of tools it belongs to, offered only when the /mcp URL asks for it (`?caps=`); none: a default tool. */
  cap?: string;
  /** It loads a page (a URL, back, reload): its answer adds the page's snapshot, which the agent would ask for next. */
  loadsPage?: boolean;
}

/** One hub method as an MCP tool: its name, what it does, its params schema and its hints. */
export interface HubTool {
  name: string;
  method: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, JSONObject>; required: string[] };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean };
  /** The group it belongs to (McpEntry.cap); none: a default tool. */
  cap?: string;
  /** McpEntry.loadsPage. */
  loadsPage?: boolean;
}

/** The OpenRPC document's parts the tools are made of. */
interface ToolDocument {
  methods: { name: string; params: { name: string; description?: string; required?: boolean; schema: object }[]; "x-mcp"?: McpEntry }[];
  /** A shared param's text for a model; null: the tools offer it only where their `x-mcp.params` give it a text. */
  "x-mcp-params"?: Record<string, string | null>;
  components?: { schemas?: Record<string, object> };
}

const REF_PREFIX = "#/components/schemas/";
// Limits the hub checks on every call and a model never comes near: left out of the tools' schemas, which a model
// reads in full before its first call.
const UNSHOWN_KEYWORDS = new Set(["minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems"]);
// `additionalProperties: false` on every object of every tool is as much text as two tools: the hub refuses a param it
// does not know with INVALID_PARAMS naming it, which a model reads and acts on.
// A numeric bound this far out is a sanity cap, not something a model has to know.
const SHOWN_BOUND_MAX = 10_000;

/** The groups of tools beyond the default ones, by name: what `?caps=` may ask for (and `all`, every one). */
export function capsOf(tools: readonly HubTool[]): Set<string> {
  return new Set(tools.flatMap((tool) => (tool.cap === undefined ? [] : [tool.cap])));
}

/** A tool's name: the method's, with `.` as `_` (model APIs take `[a-zA-Z0-9_-]` only): `tabs.open` is `tabs_open`. */
export function toolName(method: string): string {
  return method.replaceAll(".", "_");
}

/**
 * The MCP tools, one per method the OpenRPC document marks with `x-mcp`: its texts for a model (the param texts of
 * `x-mcp.params`, else of the document's `x-mcp-params`, else the param's own), the method's params schema but the
 * params it does not offer (the document's shared schemas written in place, the limits a model never meets left out, the MCP
 * front's defaults shown as defaults).
 */
export function hubTools(document: OpenRpcDocument): HubTool[] {
  const { methods, "x-mcp-params": shared = {}, components } = document as unknown as ToolDocument;
  const schemas = components?.schemas ?? {};
  return methods.flatMap((method) => {
    const entry = method["x-mcp"];
    if (!entry) return [];
    const defaults = MCP_DEFAULTS[method.name] ?? {};
    const ownText = (name: string): string | undefined => entry.params?.[name];
    const offered = method.params.filter(
      (param) => !entry.hide?.includes(param.name) && (shared[param.name] !== null || ownText(param.name) !== undefined),
    );
    const properties = Object.fromEntries(
      offered.map((param) => {
        const text = ownText(param.name) ?? shared[param.name] ?? param.description;
        const property = {
          ...(forModels(param.schema, schemas) as JSONObject),
          ...(text ? { description: text } : {}),
          ...(param.name in defaults ? { default: defaults[param.name] as JSONObject[string] } : {}),
        };
        return [param.name, property];
      }),
    );
    const required = offered.filter((param) => param.required).map((param) => param.name);
    return [
      {
        name: toolName(method.name),
        method: method.name,
        description: entry.description,
        inputSchema: { type: "object", properties, required },
        // destructiveHint means something only beside readOnlyHint false, and openWorldHint is left at its default,
        // true, which it is: every tool reaches whatever sites the tabs load (the specification's ToolAnnotations).
        annotations: {
          title: entry.title,
          readOnlyHint: entry.readOnly,
          ...(entry.readOnly ? {} : { destructiveHint: entry.destructive !== false }),
        },
        ...(entry.cap === undefined ? {} : { cap: entry.cap }),
        ...(entry.loadsPage === true ? { loadsPage: true } : {}),
      },
    ];
  });
}

/**
 * A params schema as a model reads it: every `$ref` to the document's shared schemas written in place (params have no
 * cycles), without the limits of UNSHOWN_KEYWORDS, `additionalProperties: false` and the far-out bounds.
 */
function forModels(schema: unknown, schemas: Record<string, object>, depth = 0): unknown {
  if (depth > 20) throw new Error("the OpenRPC params schemas nest too deep (a $ref cycle?)");
  if (Array.isArray(schema)) return schema.map((item) => forModels(item, schemas, depth + 1));
  if (schema === null || typeof schema !== "object") return schema;
  const { $ref, ...rest } = schema as { $ref?: unknown };
  const own = Object.fromEntries(
    Object.entries(rest)
      .filter(([key, value]) => !isUnshown(key, value))
      .map(([key, value]) => [key, shownValue(key, value, { schemas, depth })]),
  );
  if (typeof $ref !== "string" || !$ref.startsWith(REF_PREFIX)) return own;
  const target = schemas[$ref.slice(REF_PREFIX.length)];
  if (!target) throw new Error(`the OpenRPC document has no schema ${$ref}`);
  return { ...(forModels(target, schemas, depth + 1) as object), ...own };
}

/** A keyword's value as a model reads it: `properties` maps names (not keywords) to schemas; values are as they are. */
function shownValue(keyword: string, value: unknown, at: { schemas: Record<string, object>; depth: number }): unknown {
  if (keyword === "default" || keyword === "enum" || keyword === "const" || keyword === "examples") return value;
  if (keyword !== "properties" || value === null || typeof value !== "object") return forModels(value, at.schemas, at.depth + 1);
  return Object.fromEntries(Object.entries(value).map(([name, property]) => [name, forModels(property, at.schemas, at.depth + 1)]));
}

function isUnshown(keyword: string, value: unknown): boolean {
  if (UNSHOWN_KEYWORDS.has(keyword) || (keyword === "additionalProperties" && value === false)) return true;
  return (keyword === "minimum" || keyword === "maximum") && typeof value === "number" && Math.abs(value) >= SHOWN_BOUND_MAX;
}
