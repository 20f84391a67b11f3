import type { ParseArgsConfig } from "node:util";
import type { TabwireClient } from "../client/index.js";
import { CliError, parseDuration } from "./eval-options.js";

type Values = Record<string, string | boolean | string[] | undefined>;
/** What a page command gets: the client, its options and positionals, and its tab. */
interface PageRun {
  client: TabwireClient;
  values: Values;
  positionals: string[];
  target: () => Promise<string>;
}
type Options = NonNullable<ParseArgsConfig["options"]>;

const TIMEOUT: Options = { timeout: { type: "string" } };

/** The call's budget from --timeout, when given. */
export function timeoutOf(values: Values): { timeoutMs?: number } {
  return typeof values.timeout === "string" ? { timeoutMs: parseDuration(values.timeout) } : {};
}

/** The commands that move a tab between pages: each one hub call, printed as `{"ok": true, url, title}`. */
export const PAGE_COMMANDS: Record<string, { options: Options; run: (run: PageRun) => Promise<object> }> = {
  navigate: {
    options: TIMEOUT,
    run: async ({ client, values, positionals: [url], target }) => {
      if (url === undefined || url === "") throw new CliError("missing navigate URL", 1);
      return client.call("navigate", { target: await target(), url, ...timeoutOf(values) });
    },
  },
  back: {
    options: TIMEOUT,
    run: async ({ client, values, target }) => client.call("tabs.back", { target: await target(), ...timeoutOf(values) }),
  },
  forward: {
    options: TIMEOUT,
    run: async ({ client, values, target }) => client.call("tabs.forward", { target: await target(), ...timeoutOf(values) }),
  },
  reload: {
    options: TIMEOUT,
    run: async ({ client, values, target }) => client.call("tabs.reload", { target: await target(), ...timeoutOf(values) }),
  },
  stop: {
    options: TIMEOUT,
    run: async ({ client, values, target }) => client.call("tabs.stop", { target: await target(), ...timeoutOf(values) }),
  },
};

/** What `tabwire COMMAND --help` prints for these commands, before the options every command takes. */
export const PAGE_HELP: Record<string, string> = {
  navigate: "tabwire navigate URL: load URL in the tab and wait for its load event",
  back: "tabwire back: go back to the previous page of the tab's history and wait for it to load",
  forward: "tabwire forward: go forward to the next page of the tab's history and wait for it to load",
  reload: "tabwire reload: load the tab's page again (a load still pending is given up) and wait for it",
  stop: "tabwire stop: stop the tab's loading; a page whose server does not answer is given up and the shown page stays",
};
