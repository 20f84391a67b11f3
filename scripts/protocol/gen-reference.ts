/** Writes docs/reference.md from the OpenRPC document and the methods' traits: `npm run gen` runs it after the build. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { METHODS } from "../../src/methods/index.js";
import type { MethodName } from "../../src/protocol/types.js";
import { readDocument } from "./openrpc-document.js";
import { REFERENCE_PATH, referenceMarkdown } from "./reference-markdown.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

writeFileSync(
  path.join(ROOT, REFERENCE_PATH),
  referenceMarkdown(readDocument(ROOT), (method) => METHODS[method as MethodName].traits),
);
console.log(`wrote ${REFERENCE_PATH}`);
