import { CdpFailure, refused } from "./cdp-frames.js";
import { GIVES_STREAM, PAGE_COMMANDS, paramsRefusal } from "./cdp-rules.js";

/**
 * The door of one /cdp connection's page sessions: a command passes only when the allowlist names it and its params
 * stay in the page, and IO reads only the streams Chrome handed this connection (a handle is a small number, so
 * another connection's, or the hub's, would be easy to guess).
 */
export class CdpPageGate {
  #streams = new Set<string>();

  /** Throws the CDP error a command on a page session is refused with, if it is refused. */
  check(method: string, params: Record<string, unknown>): void {
    if (!PAGE_COMMANDS.has(method)) throw refused(method);
    const why = paramsRefusal(method, params);
    if (why !== null) throw new CdpFailure(-32000, `tabwire's /cdp refuses this ${method}: ${why}`);
    if ((method === "IO.read" || method === "IO.close") && !this.#streams.has(params.handle as string))
      throw new CdpFailure(-32602, "Invalid stream handle: IO reads the streams this connection was handed only");
  }

  /** Notes what an answer handed the connection (a stream handle), or took from it (a closed one). */
  record(method: string, params: Record<string, unknown>, result: unknown): void {
    const stream = (result as { stream?: unknown } | null)?.stream;
    if (GIVES_STREAM.has(method) && typeof stream === "string") this.#streams.add(stream);
    if (method === "IO.close") this.#streams.delete(params.handle as string);
  }
}
