import type { ConnectionState } from "./method.js";

/** A call the router is about to run: its method, checked params, connection and caller's trace context. */
export interface HookedCall {
  method: string;
  params: Record<string, unknown>;
  /** The names of the params the caller gave (the others are the schema's defaults). */
  sent: readonly string[];
  connection: ConnectionState;
  /** Its method acts on the page as a user would (the `acts` trait). */
  acts: boolean;
  /** The call's traceparent, else its connection's. */
  traceparent: string | undefined;
}

/** What a hook keeps of a call it took: the call runs once `ready` settles; `end` is told its outcome, and awaited if it answers a promise. */
export interface HookedRecord {
  ready?: Promise<unknown>;
  end(outcome: string, durationMs: number): Promise<void> | undefined;
}

/** Told of each checked call before it runs and once it is answered (the tabs' timelines); undefined from `begin`: nothing to tell. */
export interface CallHook {
  begin(call: HookedCall): HookedRecord | undefined;
}
