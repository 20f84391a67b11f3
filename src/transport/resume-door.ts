import type { IncomingMessage } from "node:http";
import type { WebSocketServer } from "ws";
import { whoOf, type Grant } from "./auth.js";
import type { ResumeRegistry } from "./resume-registry.js";
import type { PeerSession } from "./resume-session.js";

/** The request header (or `?resume=on`) with which an /rpc connection asks for a session it can resume. */
export const RESUME_REQUEST_HEADER = "tabwire-resume";
/** The response header of the 101 that names the connection's session. */
export const SESSION_HEADER = "Tabwire-Session";
/** The response header of the 101 that says how long a dropped session is kept (ms). */
export const WINDOW_HEADER = "Tabwire-Resume-Window-Ms";

/** Gives /rpc upgrades that ask for it a resumable session, named in the headers of the 101. */
export class ResumeDoor {
  #resumes: ResumeRegistry;
  // The session id each asking upgrade will have, from before the 101 (which names it) to the socket.
  #ids = new WeakMap<IncomingMessage, string>();

  constructor(resumes: ResumeRegistry, wss: WebSocketServer) {
    this.#resumes = resumes;
    // Only upgrades the hub accepted get here, just before their 101: the session is named in it.
    wss.on("headers", (headers, request) => {
      if (!resumes.isOn || !asksForResume(request)) return;
      const id = resumes.newSessionId();
      this.#ids.set(request, id);
      headers.push(`${SESSION_HEADER}: ${id}`, `${WINDOW_HEADER}: ${resumes.windowMs}`);
    });
  }

  /** The session of an upgraded socket that asked for one, bound to the grant that let it in (and the caller's trace). */
  open(
    request: IncomingMessage,
    admitted: { grant: Grant; peer: string; trace: { traceparent?: string } },
  ): { session: PeerSession; resumes: ResumeRegistry } | undefined {
    const id = this.#ids.get(request);
    if (id === undefined) return undefined;
    this.#ids.delete(request);
    const binding = admitted.grant.key ?? "open";
    const session = this.#resumes.open({
      ...{ id, scope: admitted.grant.scope, capabilities: admitted.grant.capabilities },
      ...{ peer: admitted.peer, binding, who: whoOf(admitted.grant) },
      ...admitted.trace,
    });
    return { session, resumes: this.#resumes };
  }
}

/** Whether an upgrade to /rpc asked for a resumable session (the other doors have none). */
function asksForResume(request: IncomingMessage): boolean {
  const url = new URL(request.url ?? "/", "http://hub.invalid");
  if (url.pathname !== "/rpc") return false;
  const header = request.headers[RESUME_REQUEST_HEADER];
  return isOn(typeof header === "string" ? header : (url.searchParams.get("resume") ?? ""));
}

function isOn(value: string): boolean {
  return ["on", "1", "true", "yes"].includes(value.trim().toLowerCase());
}
