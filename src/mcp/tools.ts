import type { JSONObject } from "@modelcontextprotocol/server";
import type { OpenRpcDocument } from "../rpc/params-validator.js";
import { MCP_DEFAULTS } from "./tool-results.js";

/** How a method behaves as an MCP tool, from its `x-mcp` entry in the OpenRPC document. */
export interface ToolHints {
  /** It only reads (the page, the hub's state): calling it changes nothing. */
  readOnly: boolean;
  /** It may change or lose what is there (a form sent, a page left), beyond adding to it. */
  destructive?: boolean;
}

/** One hub method as an MCP tool: its name, what it does, its params schema and its hints. */
export interface HubTool {
  name: string;
  method: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, JSONObject>; required: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The OpenRPC method fields the tools are made of. */
interface ToolSource {
  name: string;
  summary?: string;
  /** A param with `x-mcp: false` is left out of the tool (the front always gives it its default). */
  params: { name: string; description?: string; required?: boolean; schema: object; "x-mcp"?: false }[];
  "x-mcp"?: ToolHints;
}

const REF_PREFIX = "#/components/schemas/";

/** A tool's name: the method's, with `.` as `_` (model APIs take `[a-zA-Z0-9_-]` only): `tabs.open` is `tabs_open`. */
export function toolName(method: string): string {
  return method.replaceAll(".", "_");
}

/**
 * The MCP tools, one per method the OpenRPC document marks with `x-mcp`: the input schema is the method's params
 * schema (each param's description kept, the document's shared schemas written in place, the MCP front's defaults
 * shown as defaults), the description its summary.
 */
export function hubTools(document: OpenRpcDocument): HubTool[] {
  const schemas = document.components?.schemas ?? {};
  return (document.methods as ToolSource[]).flatMap((method) => {
    const hints = method["x-mcp"];
    if (!hints) return [];
    const defaults = MCP_DEFAULTS[method.name] ?? {};
    const params = method.params.filter((param) => param["x-mcp"] !== false);
    const properties = Object.fromEntries(
      params.map((param) => [
        param.name,
        {
          ...(inlined(param.schema, schemas) as JSONObject),
          ...(param.description ? { description: param.description } : {}),
          ...(param.name in defaults ? { default: defaults[param.name] as JSONObject[string] } : {}),
        },
      ]),
    );
    const required = params.filter((param) => param.required).map((param) => param.name);
    const summary = method.summary ?? method.name;
    return [
      {
        name: toolName(method.name),
        method: method.name,
        description: summary,
        inputSchema: { type: "object", properties, required, additionalProperties: false },
        annotations: {
          title: summary,
          readOnlyHint: hints.readOnly,
          destructiveHint: !hints.readOnly && hints.destructive !== false,
          idempotentHint: hints.readOnly,
          // Pages are the open world: every tool reaches whatever sites the tabs load.
          openWorldHint: true,
        },
      },
    ];
  });
}

/** A schema with every `$ref` to the document's shared schemas written in place (params have no cycles). */
function inlined(schema: unknown, schemas: Record<string, object>, depth = 0): unknown {
  if (depth > 20) throw new Error("the OpenRPC params schemas nest too deep (a $ref cycle?)");
  if (Array.isArray(schema)) return schema.map((item) => inlined(item, schemas, depth + 1));
  if (schema === null || typeof schema !== "object") return schema;
  const { $ref, ...rest } = schema as { $ref?: unknown };
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value, schemas, depth + 1)]));
  if (typeof $ref !== "string" || !$ref.startsWith(REF_PREFIX)) return own;
  const target = schemas[$ref.slice(REF_PREFIX.length)];
  if (!target) throw new Error(`the OpenRPC document has no schema ${$ref}`);
  return { ...(inlined(target, schemas, depth + 1) as object), ...own };
}
