import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

// Loaded with `node --import`: the hooks run on the loader's thread and see every ES module (and each CommonJS file
// an ES module imports); the CommonJS files that require() loads are listed from require's cache at exit.
register("./load-trace-hooks.js", import.meta.url);

const requireCache = createRequire(import.meta.url).cache;
process.on("exit", () => {
  const file = process.env.LOAD_TRACE_FILE;
  const urls = Object.keys(requireCache).map((filename) => pathToFileURL(filename).href);
  if (file && urls.length > 0) appendFileSync(file, `${urls.join("\n")}\n`);
});
