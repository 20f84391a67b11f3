import type { Budget } from "../budget.js";
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
  inflight: InflightTable;
  /** Aborts when the connection closes, so what it subscribed to can be freed. */
  closed: AbortSignal;
  /** Sends a notification; false when it was dropped because the peer reads too slowly. */
  notify(method: string, params: object): boolean;
}

/** Everything a method handler gets besides its params. */
export interface CallContext<S> {
  services: S;
  connection: ConnectionState;
  budget: Budget;
  id: JsonRpcId | undefined;
}

/** One JSON-RPC method: its name and its handler, which gets params already validated and defaulted. */
export interface MethodDefinition<S, P extends object = object> {
  name: string;
  run(params: P, call: CallContext<S>): Promise<object>;
}
