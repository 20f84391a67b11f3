import type { Protocol } from "devtools-protocol";
import { HubError } from "../errors.js";

/** What the caller learns of an exception the page's code threw. */
export interface ThrownError {
  name: string;
  message: string;
  stack: string;
  lineNumber: number;
  columnNumber: number;
}

/** Turns CDP exceptionDetails into EVALUATION_FAILED with `"<Name>: <message>"` and the page's own stack. */
export function exceptionToError(details: Protocol.Runtime.ExceptionDetails, columnOffset: number): HubError {
  const thrown = describeThrown(details, columnOffset);
  const text = thrown.message ? `${thrown.name}: ${thrown.message}` : thrown.name;
  return new HubError("EVALUATION_FAILED", text, thrown);
}

function describeThrown(details: Protocol.Runtime.ExceptionDetails, columnOffset: number): ThrownError {
  const exception = details.exception;
  const position = {
    lineNumber: details.lineNumber,
    columnNumber: details.lineNumber === 0 ? Math.max(0, details.columnNumber - columnOffset) : details.columnNumber,
  };
  if (exception?.subtype === "error" && exception.description) {
    const firstLine = exception.description.split("\n", 1)[0] ?? "";
    const colon = firstLine.indexOf(": ");
    const name = colon > 0 ? firstLine.slice(0, colon) : (exception.className ?? firstLine);
    const message = colon > 0 ? firstLine.slice(colon + 2) : "";
    return { name, message, stack: exception.description, ...position };
  }
  // A thrown non-Error (throw "x", throw {code: 1}) has no name of its own.
  const message = exception?.value !== undefined ? stringify(exception.value) : (exception?.description ?? details.text);
  return { name: "Uncaught", message, stack: `Uncaught ${message}`, ...position };
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
