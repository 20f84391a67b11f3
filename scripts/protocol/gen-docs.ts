/**
 * Writes docs/reference.md and the generated sections of the other pages (method tables, tool lists, capability
 * lists) from the OpenRPC document and the methods' traits: `npm run gen` runs it after the build.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { METHODS } from "../../src/methods/index.js";
import type { MethodName } from "../../src/protocol/types.js";
import { generatedPages, regenerated } from "./doc-sections.js";
import { readDocument } from "./openrpc-document.js";
import { REFERENCE_PATH, referenceMarkdown } from "./reference-markdown.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const doc = readDocument(ROOT);
const traitsOf = (method: string) => METHODS[method as MethodName].traits;

writeFileSync(path.join(ROOT, REFERENCE_PATH), referenceMarkdown(doc, traitsOf));
console.log(`wrote ${REFERENCE_PATH}`);
for (const page of generatedPages(doc, traitsOf)) {
  const file = path.join(ROOT, page.path);
  const text = readFileSync(file, "utf8");
  const written = regenerated(page, text);
  if (written !== text) writeFileSync(file, written);
  console.log(`${written === text ? "in step" : "wrote"}: ${page.path} (${Object.keys(page.sections).length} sections)`);
}
