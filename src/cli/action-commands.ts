import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { TabwireClient } from "../client/index.js";
import { CliError, parseDuration } from "./eval-options.js";

type Values = Record<string, string | boolean | string[] | undefined>;
/** What an action command gets: the client, its options and positionals, and its tab. */
interface ActionRun {
  client: TabwireClient;
  values: Values;
  positionals: string[];
  target: () => Promise<string>;
}
type Options = NonNullable<ParseArgsConfig["options"]>;

const ELEMENT: Options = { ref: { type: "string" }, selector: { type: "string" }, at: { type: "string" }, timeout: { type: "string" } };

/** The element and budget options of an action: --ref, --selector or --at X,Y (or a ref as the first positional), --timeout. */
function elementOf(values: Values, positional?: string): { ref?: string; selector?: string; x?: number; y?: number; timeoutMs?: number } {
  const timeout = typeof values.timeout === "string" ? { timeoutMs: parseDuration(values.timeout) } : {};
  if (typeof values.ref === "string") return { ref: values.ref, ...timeout };
  if (typeof values.selector === "string") return { selector: values.selector, ...timeout };
  if (typeof values.at === "string") {
    const [x, y] = values.at.split(",").map(Number);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new CliError("--at takes X,Y: a point of the viewport in CSS pixels", 1);
    return { x: x as number, y: y as number, ...timeout };
  }
  if (positional !== undefined && /^e\d+$/.test(positional)) return { ref: positional, ...timeout };
  return timeout;
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value === "") throw new CliError(`missing ${what}`, 1);
  return value;
}

/** The action commands: each one hub call, printed as `{"ok": true, ...result}`. */
export const ACTION_COMMANDS: Record<string, { options: Options; run: (run: ActionRun) => Promise<object> }> = {
  click: {
    options: { ...ELEMENT, button: { type: "string" }, double: { type: "boolean" } },
    run: async ({ client, values, positionals: [ref], target }) => {
      const element = elementOf(values, ref);
      if (!("ref" in element || "selector" in element || "x" in element))
        throw new CliError("name the element: tabwire click REF (or --selector CSS, --at X,Y)", 1);
      const button = values.button === undefined ? {} : { button: values.button as "left" | "middle" | "right" };
      return client.call("click", { target: await target(), ...element, ...button, clickCount: values.double === true ? 2 : 1 });
    },
  },
  type: {
    options: { ...ELEMENT, delay: { type: "string" } },
    run: async ({ client, values, positionals, target }) => {
      const delay = typeof values.delay === "string" ? { delay: parseDuration(values.delay) } : {};
      return client.call("type", {
        target: await target(),
        ...elementOf(values),
        text: required(positionals.join(" "), "the text to type"),
        ...delay,
      });
    },
  },
  press: {
    options: ELEMENT,
    run: async ({ client, values, positionals: [key], target }) =>
      client.call("press", { target: await target(), ...elementOf(values), key: required(key, "the key (Enter, Control+A...)") }),
  },
  fill: {
    options: ELEMENT,
    run: async ({ client, values, positionals, target }) => {
      const [first, ...rest] = positionals;
      const element = elementOf(values, first);
      const value = "ref" in element && element.ref === first ? rest.join(" ") : positionals.join(" ");
      return client.call("fill", { target: await target(), ...element, value });
    },
  },
  select: {
    options: ELEMENT,
    run: async ({ client, values, positionals, target }) => {
      const [first, ...rest] = positionals;
      const element = elementOf(values, first);
      const chosen = "ref" in element && element.ref === first ? rest : positionals;
      if (chosen.length === 0) throw new CliError("missing the option values or labels to select", 1);
      return client.call("select", { target: await target(), ...element, values: chosen });
    },
  },
  upload: {
    options: ELEMENT,
    run: async ({ client, values, positionals, target }) => {
      const [first, ...rest] = positionals;
      const element = elementOf(values, first);
      const paths = "ref" in element && element.ref === first ? rest : positionals;
      if (paths.length === 0) throw new CliError("missing the files to upload", 1);
      const files = await Promise.all(
        paths.map(async (file) => ({ name: path.basename(file), data: (await readFile(file)).toString("base64") })),
      );
      return client.call("upload", { target: await target(), ...element, files });
    },
  },
  wait: {
    options: {
      text: { type: "string" },
      "text-gone": { type: "string" },
      selector: { type: "string" },
      state: { type: "string" },
      url: { type: "string" },
      load: { type: "string" },
      timeout: { type: "string" },
    },
    run: async ({ client, values, target }) => {
      const text = (name: string): string | undefined => (typeof values[name] === "string" ? (values[name] as string) : undefined);
      const condition = {
        ...(text("text") === undefined ? {} : { text: text("text") }),
        ...(text("text-gone") === undefined ? {} : { textGone: text("text-gone") }),
        ...(text("selector") === undefined ? {} : { selector: text("selector") }),
        ...(text("state") === undefined ? {} : { state: text("state") as "visible" }),
        ...(text("url") === undefined ? {} : { url: text("url") }),
        ...(text("load") === undefined ? {} : { loadState: text("load") as "load" }),
        ...(text("timeout") === undefined ? {} : { timeoutMs: parseDuration(text("timeout") as string) }),
      };
      return client.call("wait.for", { target: await target(), ...condition });
    },
  },
};

/** What `tabwire ACTION --help` prints, by action command. */
export const ACTION_HELP: Record<string, string> = {
  click: "tabwire click REF [--double] [--button left|middle|right]: click an element of the last snapshot (or --selector CSS, --at X,Y)",
  type: "tabwire type TEXT [--ref REF | --selector CSS] [--delay 50ms]: type TEXT, a key event per character, into the element or the focus",
  press: "tabwire press KEY [--ref REF | --selector CSS]: press a key or a chord (Enter, Control+A, Shift+ArrowDown)",
  fill: "tabwire fill REF VALUE (or --selector CSS VALUE): replace the text of a field",
  select: "tabwire select REF VALUE... (or --selector CSS VALUE...): select options by value or label",
  upload: "tabwire upload REF FILE... (or --selector CSS FILE...): set the files of a file input",
  wait: "tabwire wait --text T | --text-gone T | --selector CSS [--state visible|attached|hidden|detached] | --url GLOB | --load load|domcontentloaded|networkidle",
};
