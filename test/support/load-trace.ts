import { register } from "node:module";

// Loaded with `node --import`: the hooks run on the loader's thread, which sees every ES module and every package
// an ES module imports (not the files a CommonJS package requires inside itself, which name no new package).
register("./load-trace-hooks.js", import.meta.url);
