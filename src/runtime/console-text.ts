import type { Protocol } from "devtools-protocol";
import type { ConsoleLine } from "../protocol/types.js";
import { ownCopy } from "./utf8-cut.js";

/** The console levels the protocol speaks of. */
export type ConsoleLevel = ConsoleLine["level"];

const LEVELS: Readonly<Record<string, ConsoleLevel>> = {
  log: "log",
  info: "info",
  warning: "warn",
  warn: "warn",
  error: "error",
  assert: "error",
  debug: "debug",
  verbose: "debug",
};

/** Maps a CDP console call type (or Log entry level) to a protocol level; the rest (dir, table, trace...) are `log`. */
export function consoleLevel(type: string): ConsoleLevel {
  return LEVELS[type] ?? "log";
}

/** Renders console arguments as the DevTools console's plain text would: strings bare, others by value or description. */
export function consoleText(args: readonly Protocol.Runtime.RemoteObject[]): string {
  return args.map(argumentText).join(" ");
}

function argumentText(arg: Protocol.Runtime.RemoteObject): string {
  if (arg.type === "string") return String(arg.value);
  if (arg.unserializableValue !== undefined) return arg.unserializableValue;
  if (arg.type === "undefined") return "undefined";
  if (arg.value !== undefined) return typeof arg.value === "object" ? JSON.stringify(arg.value) : String(arg.value);
  if (arg.preview && (arg.subtype === undefined || arg.subtype === "array")) return previewText(arg.preview);
  return arg.description ?? arg.type;
}

// Chrome sends a shallow preview of objects logged to the console; render it the way the DevTools console does.
function previewText(preview: Protocol.Runtime.ObjectPreview): string {
  const more = preview.overflow ? ", …" : "";
  if (preview.subtype === "array") return `[${preview.properties.map(propertyText).join(", ")}${more}]`;
  return `{${preview.properties.map((p) => `${p.name}: ${propertyText(p)}`).join(", ")}${more}}`;
}

function propertyText(property: Protocol.Runtime.PropertyPreview): string {
  return property.type === "string" ? JSON.stringify(property.value ?? "") : (property.value ?? property.type);
}

/** The longest console text the hub keeps (console.message, console.list, a call's captured console). */
export const MAX_CONSOLE_CHARS = 32_768;

/** A console text cut to MAX_CONSOLE_CHARS (saying how much more there was), in memory of its own. */
export function cutConsoleText(text: string): string {
  if (text.length <= MAX_CONSOLE_CHARS) return text;
  return ownCopy(`${text.slice(0, MAX_CONSOLE_CHARS)}… [${text.length - MAX_CONSOLE_CHARS} more characters]`);
}
