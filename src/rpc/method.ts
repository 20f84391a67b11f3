import type { Budget } from "../budget.js";
import type { Capability, Need } from "../capabilities.js";
import type { NotificationName, Notifications, Result } from "../protocol/types.js";
import type { JsonRpcId } from "./envelope.js";
import type { InflightTable } from "./inflight.js";

/** What the router knows of the connection a call came in on. */
export interface ConnectionState {
  /** A hub-made id for logs. */
  id: string;
  /** The base client ids the connection's token reaches, or null for all. */
  scope: ReadonlySet<string> | null;
  /** The peer's address, for logs. */
  peer: string;
  /** What its token may do (ACCESS_FILE); null or absent: everything (a full token, an agent, the hub's own calls). */
  capabilities?: ReadonlySet<Capability> | null;
  /** Who the connection acts for, for audit.log: its token's id (`token-<n>`, `no token`), or `agent of <client>`. */
  who?: string;
  inflight: InflightTable;
  /** Aborts when the connection closes, so what it subscribed to can be freed. */
  closed: AbortSignal;
  /** Sends a notification of the protocol; false when it was dropped because the peer reads too slowly. */
  notify<N extends NotificationName>(method: N, params: Notifications[N]): boolean;
  /** Bytes written to the peer and not sent yet, where the transport knows (live views drop frames past a backlog). */
  bufferedBytes?: () => number;
  /** Holds a call until the connection may act again (an agent an operator paused), within the call's budget; undefined when it may now. */
  gate?: (budget: Budget) => Promise<void> | undefined;
  /** The kind of door it came in by, for the tabs' timelines: absent is an /rpc WebSocket. */
  kind?: "rpc" | "http" | "mcp" | "agent" | "cluster";
  /** The W3C `traceparent` the caller gave at the WebSocket upgrade (or an HTTP request's): its calls' spans are its children. */
  traceparent?: string;
  /** /rpc connections that asked for resume: takes over the dropped session `session` if the caller may (session.resume). */
  resume?: (session: string, lastSeq: number, budget: Budget) => ResumeAnswer | Promise<ResumeAnswer>;
}

/** The answer of session.resume. */
export type ResumeAnswer = Result<"session.resume">;

/** Everything a method handler gets besides its params. */
export interface CallContext<S> {
  services: S;
  connection: ConnectionState;
  budget: Budget;
  id: JsonRpcId | undefined;
}

/** What a method is, besides what it does: read by the cluster, the HTTP routes and the docs instead of name tables. */
export interface MethodTraits {
  /**
   * Where a call runs when the hub is a cluster: on the instance whose Chrome holds its target tab (`tab`), the one
   * its target agent is connected to (`agent`), the one that holds the subscription it names (`subscription`), the
   * one that holds its client's own egress policy when one does, else the one it came in on (`client`: it works on
   * the client's browser context, which a policed client has only there), or the one it came in on (`here`).
   */
  runs: "tab" | "agent" | "subscription" | "client" | "here";
  /** It opens, closes or moves tabs: the cluster rewrites this instance's listing before it answers. */
  changesListings?: boolean;
  /**
   * It opens a subscription whose notifications reach the connection until it closes (`opens`, its result has a
   * subscriptionId), ends one (`closes`), or sets the connection's event topics (`topics`, its result has topics).
   */
  subscription?: "opens" | "closes" | "topics";
  /** It never counts against RATE_LIMIT_PER_SEC: stopping work must stay possible for a caller over its rate. */
  unlimited?: boolean;
  /**
   * What the caller's token must be allowed (docs/security.md): a call outside its capabilities is FORBIDDEN;
   * `connection` for calls that concern only the caller's own connection (ping, cancel, unsubscribing, resuming).
   */
  needs: Need;
  /** It acts on the page as a user would (a click, typing, a navigation): with TIMELINE_PICTURES=on its timeline entry gets a picture before and after. */
  acts?: boolean;
  /** It reads the tabs' timelines: its calls are not written into them (a reader polling would push the steps out). */
  unrecorded?: boolean;
  /** It changes nothing (a listing, a read of a page, a subscription): not written to audit.log, as every other call is. */
  reads?: boolean;
}

/** One JSON-RPC method: its name, its traits and its handler, which gets params already validated and defaulted. */
export interface MethodDefinition<S, P extends object = object, R = unknown> {
  name: string;
  traits: MethodTraits;
  // A method, not a property, so that a definition with narrower params is still a MethodDefinition<S>.
  run(params: P, call: CallContext<S>): Promise<R>;
}

/** Passes on a notification another hub instance sent for this connection: the same code made it there. */
export function relayNotification(connection: ConnectionState, method: string, params: object): boolean {
  return connection.notify(method as NotificationName, params as Notifications[NotificationName]);
}
