import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { Methods, TabwireClient } from "../client/index.js";
import { CliError } from "./eval-options.js";

type Values = Record<string, string | boolean | string[] | undefined>;
/** What a state command gets: the client, its options and positionals, and its tab. */
interface StateRun {
  client: TabwireClient;
  values: Values;
  positionals: string[];
  target: () => Promise<string>;
}
type Options = NonNullable<ParseArgsConfig["options"]>;

const CLIENT: Options = { client: { type: "string" } };
const PAPER = ["Letter", "Legal", "Tabloid", "A3", "A4", "A5"] as const;

/** The client a command names with --client, else the token's own (the hub decides). */
function clientOf(values: Values): { clientId?: string } {
  return typeof values.client === "string" ? { clientId: values.client } : {};
}

function urlsOf(values: Values): { urls?: string[] } {
  const urls = (values.url as string[] | undefined)?.filter(Boolean);
  return urls?.length ? { urls } : {};
}

/** Cookies, storage state, the network log and PDF: each one or two hub calls, printed as `{"ok": true, ...result}`. */
export const STATE_COMMANDS: Record<string, { options: Options; run: (run: StateRun) => Promise<object> }> = {
  cookies: {
    options: { ...CLIENT, url: { type: "string", multiple: true }, "http-only": { type: "boolean" } },
    run: async ({ client, values, positionals: [verb = "list", pair] }) => {
      if (verb === "list") return client.call("cookies.get", { ...clientOf(values), ...urlsOf(values) });
      if (verb === "clear") return client.call("cookies.clear", { ...clientOf(values), ...urlsOf(values) });
      if (verb === "set") {
        const [name, ...rest] = (pair ?? "").split("=");
        const [url] = urlsOf(values).urls ?? [];
        if (!name || rest.length === 0 || !url) throw new CliError("use: tabwire cookies set NAME=VALUE --url URL [--http-only]", 1);
        const cookie = { name, value: rest.join("="), url, httpOnly: values["http-only"] === true };
        return client.call("cookies.set", { ...clientOf(values), cookies: [cookie] });
      }
      throw new CliError(`unknown cookies command ${JSON.stringify(verb)}; use list, set NAME=VALUE --url URL, or clear`, 1);
    },
  },
  state: {
    options: CLIENT,
    run: async ({ client, values, positionals: [verb, file] }) => {
      if (verb === "export") return client.call("state.export", clientOf(values));
      if (verb === "import") {
        if (!file)
          throw new CliError("use: tabwire state import FILE (a state.export or Playwright storageState document; - for stdin)", 1);
        const text = file === "-" ? await readStdin() : await readFile(file, "utf8");
        let state: unknown;
        try {
          state = JSON.parse(text);
        } catch {
          throw new CliError(`${file} is not JSON`, 1);
        }
        const { ok: _ok, ...document } = state as Record<string, unknown>;
        return client.call("state.import", {
          ...clientOf(values),
          state: document as unknown as Methods["state.import"]["params"]["state"],
        });
      }
      throw new CliError("use: tabwire state export > state.json, or tabwire state import state.json", 1);
    },
  },
  network: {
    options: { url: { type: "string" }, type: { type: "string", multiple: true }, limit: { type: "string" }, body: { type: "boolean" } },
    run: async ({ client, values, positionals: [verb = "list", requestId], target }) => {
      if (verb === "list") {
        const types = (values.type as string[] | undefined)?.filter(Boolean);
        const filter = {
          ...(typeof values.url === "string" ? { url: values.url } : {}),
          ...(types?.length ? { resourceType: types } : {}),
        };
        const limit = typeof values.limit === "string" ? { limit: Number(values.limit) } : {};
        return client.call("network.list", { target: await target(), ...(Object.keys(filter).length ? { filter } : {}), ...limit });
      }
      if (verb === "get") {
        if (!requestId) throw new CliError("use: tabwire network get REQUEST_ID [--body]", 1);
        return client.call("network.get", { target: await target(), requestId, body: values.body === true });
      }
      if (verb === "har") return client.call("network.har", { target: await target() });
      throw new CliError(`unknown network command ${JSON.stringify(verb)}; use list [--url GLOB] [--type T], get ID [--body], or har`, 1);
    },
  },
  pdf: {
    options: {
      output: { type: "string", short: "o" },
      landscape: { type: "boolean" },
      background: { type: "boolean" },
      format: { type: "string" },
    },
    run: async ({ client, values, target }) => {
      const format = typeof values.format === "string" ? values.format : "Letter";
      if (!(PAPER as readonly string[]).includes(format)) throw new CliError(`--format is one of ${PAPER.join(", ")}`, 1);
      const printed = await client.call("pdf", {
        target: await target(),
        format: format as (typeof PAPER)[number],
        landscape: values.landscape === true,
        printBackground: values.background === true,
      });
      const file = path.resolve(typeof values.output === "string" ? values.output : `page-${Date.now()}.pdf`);
      await writeFile(file, Buffer.from(printed.data, "base64"));
      return { path: file, bytes: printed.bytes };
    },
  },
};

/** What `tabwire COMMAND --help` says of these commands. */
export const STATE_HELP: Record<string, string> = {
  cookies: "tabwire cookies [list | set NAME=VALUE --url URL [--http-only] | clear] [--url URL...] [--client ID]: a client's cookies",
  state:
    "tabwire state export [--client ID] > state.json | tabwire state import FILE [--client ID]: cookies and localStorage, Playwright's format",
  network: "tabwire network [list [--url GLOB] [--type Fetch] [--limit N] | get REQUEST_ID [--body] | har > tab.har]: the tab's requests",
  pdf: "tabwire pdf [-o FILE] [--format A4] [--landscape] [--background]: print the tab to a PDF file",
};

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
