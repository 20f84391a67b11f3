import { appendFileSync } from "node:fs";
import type { LoadHook } from "node:module";

/** Appends the URL of every module the process loads to the file LOAD_TRACE_FILE names, one a line. */
export const load: LoadHook = (url, context, nextLoad) => {
  const file = process.env.LOAD_TRACE_FILE;
  if (file) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
};
