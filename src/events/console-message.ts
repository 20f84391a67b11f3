import type { Protocol } from "devtools-protocol";
import type { ConsoleLine, EvaluateResult } from "../protocol/types.js";
import { consoleLevel, consoleText, cutConsoleText, MAX_CONSOLE_CHARS } from "../runtime/console-text.js";
import { ownCopy } from "../runtime/utf8-cut.js";

/** A console argument as the protocol serializes it (the shape of an evaluate result). */
export type ConsoleArg = EvaluateResult;

/** One console message of a tab, before it is addressed to a subscription. */
export type ConsoleMessage = ConsoleLine;

/** The longest text, stack or string argument a message keeps; the rest is cut and counted. */

/** A message with every long string cut to MAX_CONSOLE_CHARS, so a page that logs megabytes costs the hub kilobytes. */
export function capMessage(message: ConsoleMessage): ConsoleMessage {
  const long = (text: string | undefined): boolean => text !== undefined && text.length > MAX_CONSOLE_CHARS;
  const longArg = (arg: ConsoleArg): boolean => (typeof arg.value === "string" && long(arg.value)) || long(arg.description);
  if (!long(message.text) && !long(message.stack) && !message.args.some(longArg)) return message;
  const capped: ConsoleMessage = {
    ...message,
    text: cutConsoleText(message.text),
    args: message.args.map((arg) => (longArg(arg) ? capArg(arg) : arg)),
  };
  if (message.stack !== undefined) capped.stack = cutConsoleText(message.stack);
  return capped;
}

function capArg(arg: ConsoleArg): ConsoleArg {
  const capped = { ...arg };
  if (typeof arg.value === "string") capped.value = cutConsoleText(arg.value);
  if (arg.description !== undefined) capped.description = cutConsoleText(arg.description);
  return capped;
}

/** Roughly what a message holds in memory, in bytes (strings as UTF-16). */
export function messageBytes(message: ConsoleMessage): number {
  let chars = message.text.length + (message.stack?.length ?? 0) + (message.url?.length ?? 0);
  for (const arg of message.args) chars += typeof arg.value === "string" ? arg.value.length : (arg.description?.length ?? 0) + 16;
  return 2 * chars + 256;
}

/** From Runtime.consoleAPICalled. */
export function fromConsoleCall(event: Protocol.Runtime.ConsoleAPICalledEvent): ConsoleMessage {
  return {
    level: consoleLevel(event.type),
    text: consoleText(event.args),
    args: event.args.map(toArg),
    timestamp: event.timestamp,
    source: "console",
    ...position(event.stackTrace?.callFrames[0]),
  };
}

/** From Runtime.exceptionThrown: level error, the exception's first line as text and its stack. */
export function fromException(event: Protocol.Runtime.ExceptionThrownEvent): ConsoleMessage {
  const details = event.exceptionDetails;
  const description = details.exception?.description ?? details.exception?.value ?? details.text;
  const firstLine = ownCopy(String(description).split("\n", 1)[0] ?? "");
  const message: ConsoleMessage = {
    level: "error",
    // As the DevTools console shows it: "Uncaught TypeError: kaput".
    text: details.exception ? `${details.text} ${firstLine}` : firstLine,
    args: details.exception ? [toArg(details.exception)] : [],
    timestamp: event.timestamp,
    source: "exception",
    lineNumber: details.lineNumber,
    columnNumber: details.columnNumber,
    stack: String(description),
  };
  if (details.url) message.url = details.url;
  return message;
}

/** From Log.entryAdded (network errors, interventions, violations...). */
export function fromLogEntry(event: Protocol.Log.EntryAddedEvent): ConsoleMessage {
  const { entry } = event;
  const message: ConsoleMessage = {
    level: consoleLevel(entry.level),
    text: entry.text,
    args: [],
    timestamp: entry.timestamp,
    source: "browser",
  };
  if (entry.url) message.url = entry.url;
  if (entry.lineNumber !== undefined) message.lineNumber = entry.lineNumber;
  return message;
}

function toArg(remote: Protocol.Runtime.RemoteObject): ConsoleArg {
  const arg: ConsoleArg = { type: remote.type };
  if (remote.subtype !== undefined) arg.subtype = remote.subtype;
  if (remote.unserializableValue !== undefined) arg.unserializableValue = remote.unserializableValue;
  else if (remote.value !== undefined || (remote.type !== "undefined" && !remote.objectId)) arg.value = remote.value ?? null;
  if (remote.objectId && remote.description !== undefined) arg.description = remote.description;
  return arg;
}

function position(frame: Protocol.Runtime.CallFrame | undefined): Pick<ConsoleMessage, "url" | "lineNumber" | "columnNumber"> {
  if (!frame) return {};
  return { ...(frame.url ? { url: frame.url } : {}), lineNumber: frame.lineNumber, columnNumber: frame.columnNumber };
}
