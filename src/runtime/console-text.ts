import type { Protocol } from "devtools-protocol";

/** The console levels the protocol speaks of. */
export type ConsoleLevel = "log" | "info" | "warn" | "error" | "debug";

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
  return arg.description ?? arg.type;
}
