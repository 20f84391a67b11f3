import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { TabwireClient } from "../client/index.js";
import { ACTION_COMMANDS } from "./action-commands.js";
import { PAGE_COMMANDS, timeoutOf } from "./page-commands.js";
import { STATE_COMMANDS } from "./state-commands.js";
import { activeTab, checkedTarget, connectHub, describeFailure, type CliIo } from "./cli-support.js";
import { CliError } from "./eval-options.js";
import { printSnapshotLines } from "./snapshot-lines.js";

type Values = Record<string, string | boolean | undefined>;
/** The tab a command acts on: --target, else the tab in front (see activeTab). */
type TabChoice = () => Promise<string>;
/** What a command gets: the connected client, its parsed options and positionals, the terminal, and its tab. */
interface CommandRun {
  client: TabwireClient;
  values: Values;
  positionals: string[];
  io: CliIo;
  target: TabChoice;
}
type Command = (run: CommandRun) => Promise<object | null>;

const COMMON: NonNullable<ParseArgsConfig["options"]> = {
  hub: { type: "string" },
  token: { type: "string" },
  target: { type: "string" },
  pretty: { type: "boolean" },
};

/** A command: its options, what it does, and how --pretty prints its result for people (default: indented JSON). */
interface CommandSpec {
  options: NonNullable<ParseArgsConfig["options"]>;
  run: Command;
  printPretty?: (shown: Record<string, unknown>, io: CliIo) => void;
}

/** The commands besides serve and eval: each a hub call or two, printed as `{"ok": true, ...result}`. */
const COMMANDS: Record<string, CommandSpec> = {
  status: {
    options: {},
    run: async ({ client }) => ({ ...(await client.call("clients.list", {})), ...(await client.call("tabs.list", {})) }),
  },
  tabs: { options: { client: { type: "string" }, background: { type: "boolean" }, timeout: { type: "string" } }, run: tabs },
  snapshot: {
    options: {
      interactive: { type: "boolean" },
      dom: { type: "boolean" },
      "max-chars": { type: "string" },
      cursor: { type: "string" },
      diff: { type: "string" },
    },
    run: async ({ client, values, target }) => {
      const text = (name: string): string | undefined => (typeof values[name] === "string" ? (values[name] as string) : undefined);
      return client.call("snapshot", {
        target: await target(),
        interactiveOnly: values.interactive === true,
        ...(values.dom === true ? { source: "dom" as const } : {}),
        ...(text("max-chars") === undefined ? {} : { maxChars: Number(text("max-chars")) }),
        ...(text("cursor") === undefined ? {} : { cursor: text("cursor") }),
        ...(text("diff") === undefined ? {} : { diff: text("diff") }),
      });
    },
    printPretty: printSnapshotLines,
  },
  content: {
    options: { text: { type: "boolean" } },
    run: async ({ client, values, target }) =>
      client.call("content", { target: await target(), format: values.text === true ? "text" : "html" }),
  },
  screenshot: {
    options: {
      output: { type: "string", short: "o" },
      "full-page": { type: "boolean" },
      format: { type: "string" },
      selector: { type: "string" },
    },
    run: screenshot,
  },
  console: { options: { follow: { type: "boolean" }, level: { type: "string", multiple: true } }, run: consoleCommand },
  ...PAGE_COMMANDS,
  ...ACTION_COMMANDS,
  ...STATE_COMMANDS,
  agent: {
    options: {},
    run: async ({ client, positionals: [verb, ...task], target }) => {
      if (verb !== "run") throw new CliError('use: tabwire agent run "task" --target clientId:tabId', 1);
      return { result: await client.call("agent.run", { target: await target(), input: required(task.join(" "), "the task") }) };
    },
  },
};

/** The names of these commands. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Whether `name` is one of these commands. */
export function isCommand(name: string): boolean {
  return name in COMMANDS;
}

/** Runs a command; returns the exit code. */
export async function runCommand(name: string, args: string[], io: CliIo): Promise<number> {
  const command = COMMANDS[name];
  if (!command) throw new Error(`no command ${name}`);
  let pretty = false;
  try {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...COMMON, ...command.options } });
    pretty = values.pretty === true;
    const client = await connectHub({ hub: values.hub as string | undefined, token: values.token as string | undefined });
    // The tab the CLI picked is named in the result; one the user named is not repeated.
    let picked: string | null = null;
    const target: TabChoice = async () =>
      typeof values.target === "string" ? checkedTarget(values.target) : (picked ??= await activeTab(client));
    try {
      const result = await command.run({ client, values: values as Values, positionals, io, target });
      if (result === null) return 0;
      const shown = { ok: true, ...result, ...(picked ? { target: picked } : {}) };
      if (pretty && command.printPretty) command.printPretty(shown, io);
      else io.stdout(`${JSON.stringify(shown, null, pretty ? 2 : undefined)}\n`);
      return 0;
    } finally {
      await client.close();
    }
  } catch (error) {
    const { body, exitCode } = describeFailure(error);
    io.stderr(`${JSON.stringify(body, null, pretty ? 2 : undefined)}\n`);
    return exitCode;
  }
}

async function tabs({ client, values, positionals: [verb = "list", argument] }: CommandRun): Promise<object> {
  if (verb === "list") return client.call("tabs.list", {});
  if (verb === "open") {
    const clientId = typeof values.client === "string" ? values.client : undefined;
    return client.call("tabs.open", {
      url: required(argument, "tabs open URL"),
      background: values.background === true,
      ...(clientId ? { clientId } : {}),
      ...timeoutOf(values),
    });
  }
  if (verb === "close") return client.call("tabs.close", { target: checkedTarget(required(argument, "tabs close TARGET"), "TARGET") });
  if (verb === "activate")
    return client.call("tabs.activate", { target: checkedTarget(required(argument, "tabs activate TARGET"), "TARGET") });
  throw new CliError(`unknown tabs command ${JSON.stringify(verb)}; use list, open URL, close TARGET or activate TARGET`, 1);
}

async function screenshot({ client, values, target }: CommandRun): Promise<object> {
  const format = typeof values.format === "string" ? values.format : "png";
  if (!["png", "jpeg", "webp"].includes(format)) throw new CliError("--format is png, jpeg or webp", 1);
  const shot = await client.call("screenshot", {
    target: await target(),
    format: format as "png" | "jpeg" | "webp",
    fullPage: values["full-page"] === true,
    ...(typeof values.selector === "string" ? { selector: values.selector } : {}),
  });
  const file = path.resolve(typeof values.output === "string" ? values.output : `screenshot-${Date.now()}.${format}`);
  const bytes = Buffer.from(shot.data, "base64");
  await writeFile(file, bytes);
  return { path: file, format: shot.format, width: shot.width, height: shot.height, bytes: bytes.length };
}

async function consoleCommand({ client, values, io, target }: CommandRun): Promise<object | null> {
  const tab = await target();
  const levels = (values.level as unknown as string[] | undefined)?.filter(Boolean) as
    ("log" | "info" | "warn" | "error" | "debug")[] | undefined;
  if (values.follow !== true) return client.call("console.list", { target: tab });
  client.on("console.message", (message) => io.stdout(`${JSON.stringify(message)}\n`));
  await client.call("console.subscribe", { target: tab, ...(levels?.length ? { levels } : {}) });
  // Streams until the user stops it (Ctrl-C) or the hub closes the tab or the connection.
  await new Promise<void>((resolve) => {
    client.on("tab.closed", () => resolve());
    client.on("disconnected", () => resolve());
  });
  return null;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new CliError(`missing ${what}`, 1);
  return value;
}
