import type { Protocol } from "devtools-protocol";
import { consoleLevel, consoleText, type ConsoleLevel } from "../runtime/console-text.js";

/** Where a console message came from: console.* calls, uncaught exceptions, or the browser's own log. */
export type ConsoleSource = "console" | "exception" | "browser";

/** A console argument as the protocol serializes it (the shape of an evaluate result). */
export interface ConsoleArg {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
}

/** One console message of a tab, before it is addressed to a subscription. */
export interface ConsoleMessage {
  level: ConsoleLevel;
  text: string;
  args: ConsoleArg[];
  timestamp: number;
  source: ConsoleSource;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
  stack?: string;
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
  const firstLine = String(description).split("\n", 1)[0] ?? "";
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
  const message: ConsoleMessage = { level: consoleLevel(entry.level), text: entry.text, args: [], timestamp: entry.timestamp, source: "browser" };
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
