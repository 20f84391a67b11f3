import type { DocMethod, DocParam, OpenRpcDocument } from "./openrpc-document.js";
import { anchor, cell } from "./reference-markdown.js";
import { refName, type Schema } from "./schema-to-ts.js";

/** Where the method tables go: docs/protocol.md section 5, one table per group. */
export const PROTOCOL_PATH = "docs/protocol.md";

/** Params no row shows: every call's budget and trace context (section 4 and reference.md say which methods take them). */
const UNLISTED_PARAMS = new Set(["timeoutMs", "traceparent"]);

/** The group of docs/protocol.md section 5 a method is listed in: the one tag of its OpenRPC entry. */
export function groupOf(method: DocMethod): string {
  const tags = method.tags ?? [];
  const name = tags[0]?.name;
  if (tags.length !== 1 || name === undefined)
    throw new Error(
      `${method.name}: its OpenRPC entry needs one tag, "tags": [{ "name": "<group>" }], naming its group of docs/protocol.md section 5`,
    );
  return name;
}

/** The section name of a group's table (`methods: Hub and tabs`). */
function tableSection(group: string): string {
  return `methods: ${group}`;
}

/** Each group's table of methods, by section name, in the document's order. */
export function methodTables(doc: OpenRpcDocument): Record<string, string> {
  const groups = new Map<string, DocMethod[]>();
  for (const method of doc.methods) groups.set(groupOf(method), [...(groups.get(groupOf(method)) ?? []), method]);
  return Object.fromEntries(
    [...groups].map(([group, methods]) => [
      tableSection(group),
      // Blank lines around the table, so that no Markdown reader takes a marker for a row of it.
      `\n\n| method | what it does | params | result |\n|---|---|---|---|\n${methods.map((method) => methodRow(method, doc)).join("\n")}\n\n`,
    ]),
  );
}

function methodRow(method: DocMethod, doc: OpenRpcDocument): string {
  const params = method.params.filter((param) => !UNLISTED_PARAMS.has(param.name)).map((param) => paramText(param, doc));
  const link = `[\`${method.name}\`](reference.md#${anchor(method.name)})`;
  return `| ${link} | ${cell(method.summary ?? "")} | ${params.join(", ") || "—"} | ${cell(shapeOf(method.result.schema))} |`;
}

/** `name`, `name?`, or `name` = `default`, as the reference's params say. */
function paramText(param: DocParam, doc: OpenRpcDocument): string {
  const schema = param.schema.$ref === undefined ? param.schema : doc.components.schemas[refName(param.schema.$ref)];
  const fallback = schema?.default;
  if (fallback !== undefined) return `\`${param.name}\` = \`${typeof fallback === "string" ? fallback : JSON.stringify(fallback)}\``;
  return `\`${param.name}\`${param.required === true ? "" : "?"}`;
}

/** A result in one line: its fields (`{url, title?}`), or the type it is, linked to the reference. */
function shapeOf(schema: Schema): string {
  if (schema.$ref !== undefined) return `[${refName(schema.$ref)}](reference.md#${anchor(refName(schema.$ref))})`;
  if (schema.allOf) return schema.allOf.map(shapeOf).join(" and ");
  const members = schema.oneOf ?? schema.anyOf;
  if (members) return members.map(shapeOf).join(" or ");
  if (!schema.properties) return schema.description ?? (schema.type === undefined ? "any" : String(schema.type));
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, field]) => `${name}${required.has(name) ? "" : "?"}${fieldType(field)}`);
  return `\`{${fields.join(", ")}}\``;
}

/** What a field of a result says of itself in one line: its constant (`closed: true`) or the named type of its items (`tabs: Tab[]`); a field of a named type is its reference's to show. */
function fieldType(field: Schema): string {
  if ("const" in field) return `: ${JSON.stringify(field.const)}`;
  if (field.items?.$ref !== undefined) return `: ${refName(field.items.$ref)}[]`;
  return "";
}
