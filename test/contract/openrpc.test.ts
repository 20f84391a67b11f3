import { readFileSync } from "node:fs";
import AjvModule from "ajv";
import { expect } from "chai";
import { METHODS } from "../../src/methods/index.js";
import { METHOD_NAMES, NOTIFICATION_NAMES } from "../../src/protocol/types.js";
import { ErrorCode } from "../../src/errors.js";
import { loadOpenRpc, ParamsValidator } from "../../src/rpc/params-validator.js";
import { patternWords } from "../../src/rpc/pattern-words.js";

const Ajv = AjvModule.default;

interface Example {
  name: string;
  params: { name: string; value: unknown }[];
  result?: { name: string; value: unknown };
}

interface DocMethod {
  name: string;
  paramStructure?: string;
  params: { name: string; schema: object }[];
  result: { name: string; schema: object };
  errors?: { $ref: string }[];
  examples?: Example[];
  "x-mcp"?: { readOnly: boolean; destructive?: boolean };
}

const doc = loadOpenRpc() as unknown as {
  openrpc: string;
  methods: DocMethod[];
  "x-notifications": { name: string; summary: string; "x-sentBy": string[]; params: object }[];
  components: { schemas: Record<string, object>; errors: Record<string, { code: number; message: string }> };
};

describe("contract: protocol/tabwire.openrpc.json against the handlers and the error table", () => {
  it("is an OpenRPC 1.x document", () => {
    expect(doc.openrpc).to.match(/^1\./);
  });

  it("describes exactly the methods the hub serves, each under its own name", () => {
    expect(Object.keys(METHODS).sort()).to.deep.equal(doc.methods.map((m) => m.name).sort());
    for (const [name, method] of Object.entries(METHODS)) expect(method.name).to.equal(name);
  });

  it("has the error table of src/errors.ts, name for name and code for code", () => {
    const table = Object.fromEntries(Object.entries(doc.components.errors).map(([name, error]) => [name, error.code]));
    expect(table).to.deep.equal({ ...ErrorCode });
  });

  it("takes params by name, lists only known errors, and has an example for every method", () => {
    for (const method of doc.methods) {
      expect(method.paramStructure, method.name).to.equal("by-name");
      for (const ref of method.errors ?? []) {
        expect(doc.components.errors, `${method.name} ${ref.$ref}`).to.have.property(ref.$ref.replace("#/components/errors/", ""));
      }
      expect(method.examples ?? [], method.name).to.not.be.empty;
    }
  });

  it("every example's params pass the hub's own validation and its result fits the result schema", () => {
    const validator = new ParamsValidator(loadOpenRpc());
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const method of doc.methods) {
      const checkResult = ajv.compile({ ...method.result.schema, components: doc.components });
      for (const example of method.examples ?? []) {
        const params = Object.fromEntries(example.params.map((p) => [p.name, p.value]));
        expect(() => validator.validate(method.name, params), `${method.name}: ${example.name}`).to.not.throw();
        if (example.result)
          expect(checkResult(example.result.value), `${method.name}: ${example.name} ${JSON.stringify(checkResult.errors)}`).to.equal(true);
      }
    }
  });

  it("the generated names are the document's methods and notifications", () => {
    expect([...METHOD_NAMES]).to.deep.equal(doc.methods.map((m) => m.name));
    expect([...NOTIFICATION_NAMES]).to.deep.equal(doc["x-notifications"].map((n) => n.name));
  });

  it("every notification's params name seq, as the hub numbers every notification it sends on /rpc", () => {
    const names = (schema: unknown): string[] => {
      const node = schema as { properties?: object; allOf?: unknown[] };
      return [...Object.keys(node.properties ?? {}), ...(node.allOf ?? []).flatMap(names)];
    };
    expect(doc["x-notifications"].filter((n) => !names(n.params).includes("seq")).map((n) => n.name)).to.deep.equal([]);
  });

  it("bounds every array a method takes with maxItems, so no request's errors grow with its size", () => {
    const unbounded: string[] = [];
    const walk = (schema: unknown, at: string): void => {
      if (schema === null || typeof schema !== "object") return;
      const node = schema as Record<string, unknown>;
      if ((node.type === "array" || node.items !== undefined) && typeof node.maxItems !== "number") unbounded.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    for (const method of doc.methods) for (const param of method.params) walk(param.schema, `${method.name}:${param.name}`);
    expect(unbounded).to.deep.equal([]);
  });

  it("every pattern of the document has words for the INVALID_PARAMS message (a caller never reads a regular expression)", () => {
    const patterns = new Set<string>();
    const walk = (schema: unknown): void => {
      if (schema === null || typeof schema !== "object") return;
      const node = schema as Record<string, unknown>;
      if (typeof node.pattern === "string") patterns.add(node.pattern);
      for (const child of Object.values(node)) walk(child);
    };
    walk(doc);
    expect(patterns.size).to.be.above(0);
    expect([...patterns].filter((pattern) => patternWords(pattern) === undefined)).to.deep.equal([]);
  });

  it("every tab-level method takes target and timeoutMs", () => {
    for (const name of ["tabs.close", "tabs.activate", "navigate", "evaluate"]) {
      const params = doc.methods.find((m) => m.name === name)?.params.map((p) => p.name);
      expect(params, name).to.include.members(["target", "timeoutMs"]);
    }
  });
});

describe("contract: .env.example lists every variable src/config.ts reads (itself or through limit-settings.ts and timeline-settings.ts)", () => {
  it("has the same names, no more and no fewer", () => {
    const source = ["config.ts", "limit-settings.ts", "timeline-settings.ts"]
      .map((file) => readFileSync(new URL(`../../../src/${file}`, import.meta.url), "utf8"))
      .join("\n");
    const read = new Set([...source.matchAll(/env(?:\.|, ")([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]));
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
    const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect([...listed].sort()).to.deep.equal([...read].sort());
  });

  it("every x-mcp is well-formed (the README's list of tools is generated from them: generated.test.ts)", () => {
    for (const method of doc.methods.filter((m) => m["x-mcp"])) expect(typeof method["x-mcp"]?.readOnly, method.name).to.equal("boolean");
  });
});
