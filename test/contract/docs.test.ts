import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { readDocument } from "../../scripts/protocol/openrpc-document.js";
import type { Schema } from "../../scripts/protocol/schema-to-ts.js";
import { HUB_VERSION, PROTOCOL_VERSION } from "../../src/version.js";

const ROOT = new URL("../../../", import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, ROOT), "utf8");
const doc = readDocument(fileURLToPath(ROOT));

/** The paths of the fields held by objects inside a value (`request.url`, `requests[].status`), $refs left to their type. */
function innerPaths(path: string, schema: Schema): string[] {
  if (schema.$ref !== undefined) return [];
  if (schema.items) return innerPaths(`${path}[]`, schema.items);
  const members = [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])];
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, field]) => [
    `${path}.${name}`,
    ...innerPaths(`${path}.${name}`, field),
  ]);
  return [...own, ...members.flatMap((member) => innerPaths(path, member))];
}

/** A method's section of docs/reference.md, from its heading to the next one. */
function referenceSection(reference: string, method: string): string {
  const start = reference.indexOf(`### \`${method}\`\n`);
  expect(start, `${method} has a section`).to.be.greaterThan(-1);
  const end = reference.indexOf("\n### ", start + 1);
  return reference.slice(start, end === -1 ? undefined : end);
}

describe("contract: the docs say what the code does", () => {
  it("docs/operations.md's settings table names every setting .env.example lists, and no other", () => {
    const listed = [...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]);
    const table = /## Settings\n[\s\S]*?\n(\| group \| settings \|[\s\S]*?)\n\n/.exec(read("docs/operations.md"))?.[1] ?? "";
    const named = [...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]);
    expect([...new Set(named)].sort()).to.deep.equal([...listed].sort());
  });

  it("docs/reference.md shows the fields of every object inside a method's params and result, not a bare object", () => {
    const reference = read("docs/reference.md");
    for (const method of doc.methods) {
      const section = referenceSection(reference, method.name);
      const paths = [
        ...method.params.flatMap((param) => innerPaths(param.name, param.schema)),
        ...Object.entries(method.result.schema.properties ?? {}).flatMap(([name, field]) => innerPaths(name, field)),
      ];
      for (const path of paths)
        expect(section, `${method.name}: ${path}`).to.match(new RegExp(`\\| \`${path.replace(/[.[\]]/g, "\\$&")}\`\\??`));
    }
  });

  it("the product's version is package.json's, CHANGELOG.md's newest release is it (below an Unreleased section, if any), and agents are told the protocol's", () => {
    const pkg = JSON.parse(read("package.json")) as { version: string };
    expect(HUB_VERSION).to.equal(pkg.version);
    const headings = [...read("CHANGELOG.md").matchAll(/^## (\S+)/gm)].map((match) => match[1]);
    expect(headings.find((heading) => heading !== "Unreleased")).to.equal(pkg.version);
    expect(headings.indexOf("Unreleased"), "Unreleased comes first, or not at all").to.be.at.most(0);
    expect(PROTOCOL_VERSION).to.equal(doc.info.version);
  });
});
