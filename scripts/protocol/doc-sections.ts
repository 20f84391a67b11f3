import { withSections } from "./generated-sections.js";
import { methodTables, PROTOCOL_PATH } from "./method-tables.js";
import type { DocMethod, OpenRpcDocument } from "./openrpc-document.js";
import type { ReferenceTraits } from "./reference-markdown.js";

/** A hand-written page and the sections of it that `npm run gen` writes, by name. */
export interface GeneratedPage {
  path: string;
  sections: Record<string, string>;
}

/** The capabilities a method may need, in the order docs/security.md lists them; `connection`: none. */
const NEEDS = ["read", "act", "script", "agents", "connection"] as const;

/** Every page with generated sections, from the document and the methods' traits. */
export function generatedPages(doc: OpenRpcDocument, traitsOf: (method: string) => ReferenceTraits): GeneratedPage[] {
  const tools = doc.methods.filter((method) => method["x-mcp"]);
  const withTraits = (keep: (traits: ReferenceTraits) => boolean): DocMethod[] =>
    doc.methods.filter((method) => keep(traitsOf(method.name)));
  const caps = [...new Set(tools.flatMap((method) => method["x-mcp"]?.cap ?? []))];
  const shared = doc["x-mcp-params"] ?? {};
  return [
    { path: "README.md", sections: { "mcp tools": toolList(tools) } },
    { path: PROTOCOL_PATH, sections: methodTables(doc) },
    {
      path: "docs/mcp.md",
      sections: {
        "mcp tools: default": toolList(tools.filter((method) => method["x-mcp"]?.cap === undefined)),
        "mcp tools: groups": caps
          .map((cap) => `\`${cap}\` (${toolList(tools.filter((method) => method["x-mcp"]?.cap === cap))})`)
          .join(", "),
        "mcp tools: timeoutMs": toolList(tools.filter((method) => shared.timeoutMs === null && method["x-mcp"]?.params?.timeoutMs)),
        "mcp hints: read-only": toolList(tools.filter((method) => method["x-mcp"]?.readOnly)),
        "mcp hints: destructive": toolList(tools.filter((method) => !method["x-mcp"]?.readOnly && method["x-mcp"]?.destructive !== false)),
        "mcp hints: additive": toolList(tools.filter((method) => !method["x-mcp"]?.readOnly && method["x-mcp"]?.destructive === false)),
      },
    },
    {
      path: "docs/security.md",
      sections: Object.fromEntries(
        NEEDS.map((need) => [`methods needing ${need}`, methodList(withTraits((traits) => traits.needs === need))]),
      ),
    },
    {
      path: "docs/cluster.md",
      sections: { "methods run where the client is": methodList(withTraits((traits) => traits.runs === "client")) },
    },
  ];
}

/** What `npm run gen` makes of a page's text: its generated sections written again. */
export function regenerated(page: GeneratedPage, text: string): string {
  return withSections(page.path, text, page.sections);
}

/** MCP tools by name, in the document's order: `tabs_list`, `tabs_open`. */
function toolList(methods: DocMethod[]): string {
  return methods.map((method) => `\`${method.name.replaceAll(".", "_")}\``).join(", ");
}

/** Methods by name, in the document's order: `tabs.list`, `tabs.open`. */
function methodList(methods: DocMethod[]): string {
  return methods.map((method) => `\`${method.name}\``).join(", ");
}
