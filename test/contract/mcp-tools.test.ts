import { expect } from "chai";
import { hubTools, type McpEntry } from "../../src/mcp/tools.js";
import { loadOpenRpc } from "../../src/rpc/params-validator.js";

const doc = loadOpenRpc() as unknown as {
  methods: { name: string; params: { name: string }[]; "x-mcp"?: McpEntry }[];
};
const tools = hubTools(loadOpenRpc());
/** What a session with no caps and no agent lists: the default tools. */
const defaults = tools.filter((tool) => tool.cap === undefined && tool.method !== "agent.run");
const listed = (offered: typeof tools): string =>
  JSON.stringify({
    tools: offered.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
  });

// The hub's own language, which a model has no use for: its JSON-RPC method names, its operator settings and error
// names (UPPER_SNAKE), and the doors and parts of the hub.
const dotted = doc.methods.map((method) => method.name).filter((name) => name.includes("."));
const INTERNAL = [
  /\bcallOn\b/,
  /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/,
  /JSON-RPC/i,
  /\/rpc\b/,
  /orchestrator/i,
  /\bCDP\b/,
  /\bclientId\b/,
  /DevTools/,
];

/** Every schema of a tool's params, nested ones included, with its path. */
function* schemasOf(schema: Record<string, unknown>, path: string): Generator<[string, Record<string, unknown>]> {
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    yield [`${path}.${name}`, property];
    yield* schemasOf(property, `${path}.${name}`);
  }
  const items = schema.items as Record<string, unknown> | undefined;
  if (items) yield* schemasOf(items, `${path}[]`);
  for (const each of (schema.oneOf ?? []) as Record<string, unknown>[]) yield* schemasOf(each, path);
}

describe("contract: the MCP tools as a model reads them (x-mcp in the OpenRPC document)", () => {
  it("every x-mcp entry has a title and a description, and names only params its method has", () => {
    for (const method of doc.methods) {
      const entry = method["x-mcp"];
      if (!entry) continue;
      expect(entry.title, method.name).to.be.a("string").that.is.not.empty;
      expect(entry.description, method.name).to.be.a("string").that.is.not.empty;
      const names = method.params.map((param) => param.name);
      expect(names, method.name).to.include.members([...Object.keys(entry.params ?? {}), ...(entry.hide ?? [])]);
    }
  });

  it("describes every param of every tool, the nested ones too", () => {
    for (const tool of tools) {
      for (const [path, schema] of schemasOf(tool.inputSchema, tool.name)) {
        expect(schema.description, path).to.be.a("string").that.is.not.empty;
      }
    }
  });

  it("speaks in MCP terms: no method of the hub by its JSON-RPC name, no operator setting, no door of the hub", () => {
    const texts = listed(tools);
    for (const name of dotted) expect(texts, name).to.not.match(new RegExp(`\\b${name.replace(".", "\\.")}\\b`));
    for (const word of INTERNAL) expect(texts.match(word)?.[0] ?? null, String(word)).to.equal(null);
  });

  it("lists the default tools in at most 20,000 characters (@playwright/mcp lists 20.3k, chrome-devtools-mcp 28.6k)", () => {
    expect(listed(defaults).length).to.be.at.most(20_000);
  });

  it("offers the default tools without caps and every other tool under a cap", () => {
    expect(defaults.map((tool) => tool.name)).to.include.members(["tabs_open", "snapshot", "click", "fillForm", "network_list"]);
    expect(
      tools
        .filter((tool) => tool.cap !== undefined)
        .map((tool) => [tool.name, tool.cap])
        .sort(),
    ).to.deep.equal([
      ["emulate", "emulation"],
      ["network_conditions", "emulation"],
      ["network_route", "routing"],
      ["network_unroute", "routing"],
    ]);
  });
});
