/** Writes the protocol types and the method list from the OpenRPC document: `npm run gen` runs it before the build. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { handlerFile, INDEX_PATH, methodsIndex } from "./methods-index.js";
import { readDocument } from "./openrpc-document.js";
import { PROTOCOL_DIR, protocolModules } from "./protocol-types.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const doc = readDocument(ROOT);
const missing = doc.methods.map((method) => `src/methods/${handlerFile(method.name)}`).filter((file) => !existsSync(path.join(ROOT, file)));
if (missing.length > 0) {
  console.error(`these methods of the document have no handler file yet: ${missing.join(", ")}`);
  process.exit(1);
}
const modules = Object.entries(protocolModules(doc)).map(([name, text]) => [`${PROTOCOL_DIR}/${name}`, text] as const);
for (const [file, text] of [...modules, [INDEX_PATH, methodsIndex(doc)] as const]) {
  mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true });
  writeFileSync(path.join(ROOT, file), text);
  console.log(`wrote ${file}`);
}
