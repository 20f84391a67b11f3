import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { generatedPages, regenerated } from "../../scripts/protocol/doc-sections.js";
import { withSections } from "../../scripts/protocol/generated-sections.js";
import { groupOf } from "../../scripts/protocol/method-tables.js";
import { INDEX_PATH, methodsIndex } from "../../scripts/protocol/methods-index.js";
import { readDocument } from "../../scripts/protocol/openrpc-document.js";
import { PROTOCOL_DIR, protocolModules } from "../../scripts/protocol/protocol-types.js";
import { REFERENCE_PATH, referenceMarkdown } from "../../scripts/protocol/reference-markdown.js";
import { METHODS } from "../../src/methods/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const doc = readDocument(ROOT);

function onDisk(file: string): string {
  return readFileSync(`${ROOT}/${file}`, "utf8");
}

describe("contract: what is generated from the OpenRPC document is in step with it", () => {
  const generated = [
    ...Object.entries(protocolModules(doc)).map(([name, text]) => [`${PROTOCOL_DIR}/${name}`, text] as const),
    [INDEX_PATH, methodsIndex(doc)] as const,
  ];
  for (const [file, text] of generated) {
    it(`${file} is what npm run gen writes from the document`, () => {
      expect(onDisk(file) === text, `${file} differs from the document: run npm run gen`).to.equal(true);
    });
  }

  it(`${REFERENCE_PATH} is what npm run gen writes from the document and the methods' traits`, () => {
    const generated = referenceMarkdown(doc, (name) => METHODS[name as keyof typeof METHODS].traits);
    expect(onDisk(REFERENCE_PATH) === generated, `${REFERENCE_PATH} differs from the document: run npm run gen`).to.equal(true);
  });

  const traitsOf = (name: string) => METHODS[name as keyof typeof METHODS].traits;
  for (const page of generatedPages(doc, traitsOf)) {
    it(`${page.path}'s generated sections (${Object.keys(page.sections).join("; ")}) are what npm run gen writes`, () => {
      const text = onDisk(page.path);
      expect(regenerated(page, text) === text, `${page.path} differs from the document: run npm run gen`).to.equal(true);
    });
  }

  it("a generated section that is stale, missing or unknown is caught", () => {
    const page = "<!-- generated: tools -->`a`<!-- /generated: tools -->";
    expect(withSections("page.md", page, { tools: "`a`" })).to.equal(page);
    expect(withSections("page.md", page, { tools: "`a`, `b`" })).to.not.equal(page);
    expect(() => withSections("page.md", page, { tools: "`a`", hints: "" })).to.throw(/no place for <!-- generated: hints -->/);
    expect(() => withSections("page.md", page, {})).to.throw(/writes no section named tools/);
    expect(() => withSections("page.md", "<!-- generated: tools -->", { tools: "" })).to.throw(/closes tools/);
  });

  it("every method is in one group of docs/protocol.md section 5 (its one OpenRPC tag)", () => {
    for (const method of doc.methods) expect(groupOf(method), method.name).to.be.a("string").and.not.equal("");
    expect(() => groupOf({ ...doc.methods[0]!, tags: [] })).to.throw(/needs one tag/);
  });

  it("each method's traits fit its params and result", () => {
    for (const method of doc.methods) {
      const { traits } = METHODS[method.name as keyof typeof METHODS];
      const param = (name: string): boolean => method.params.some((p) => p.name === name && p.required === true);
      const answers = (name: string): boolean => JSON.stringify(method.result.schema).includes(`"${name}"`);
      if (traits.runs === "tab" || traits.runs === "agent") expect(param("target"), `${method.name} runs on its target`).to.equal(true);
      if (traits.runs === "subscription") expect(param("subscriptionId"), `${method.name} runs where its subscription is`).to.equal(true);
      if (traits.subscription === "opens") expect(answers("subscriptionId"), `${method.name} opens a subscription`).to.equal(true);
      if (traits.subscription === "topics") expect(answers("topics"), `${method.name} sets topics`).to.equal(true);
    }
  });

  it("every notification says what it is and which methods make the hub send it, or whom it goes to unasked", () => {
    const methods = new Set(doc.methods.map((method) => method.name));
    for (const note of doc["x-notifications"]) {
      expect(note.summary, note.name).to.be.a("string").and.not.equal("");
      expect(
        note["x-sentBy"].filter((name) => !methods.has(name)),
        note.name,
      ).to.deep.equal([]);
      // A notification no method asks for (hub.draining) says whom it goes to instead.
      if (note["x-sentBy"].length === 0) expect(note["x-sentTo"], `${note.name} says whom it goes to`).to.be.a("string").and.not.equal("");
    }
  });
});
