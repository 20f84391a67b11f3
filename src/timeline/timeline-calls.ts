import type { TimelineEntry } from "../protocol/types.js";
import type { CallHook, HookedCall, HookedRecord } from "../rpc/call-hook.js";
import type { ConnectionState } from "../rpc/method.js";
import { traceIdOf } from "../tracing.js";
import { callSummary } from "./call-summary.js";
import type { TabTimelines } from "./tab-timelines.js";
import type { TimelinePictures } from "./timeline-pictures.js";

/**
 * The router's hook that writes every call on a tab into the tab's timeline once it is answered: its method, a
 * summary of its params (call-summary.ts), its caller (the kind of door and who it acts for, never a token), outcome,
 * duration and the caller's trace id; an action (the `acts` trait) with TIMELINE_PICTURES=on gets its pictures.
 * A call whose target the caller may not see, or which names no open tab, is written nowhere.
 */
export class TimelineCalls implements CallHook {
  #timelines: TabTimelines;
  #pictures: TimelinePictures | null;
  #callers = new WeakMap<ConnectionState, NonNullable<TimelineEntry["caller"]>>();

  constructor(timelines: TabTimelines, pictures: TimelinePictures | null) {
    this.#timelines = timelines;
    this.#pictures = pictures;
  }

  begin(call: HookedCall): HookedRecord | undefined {
    const target = call.params.target;
    if (typeof target !== "string") return undefined;
    const timeline = this.#timelines.forCall(target, call.connection);
    if (!timeline) return undefined;
    const { method, params, connection } = call;
    // One object of one shape, finished by `end` before the ring holds it: a call on the hot path allocates little.
    const entry: TimelineEntry = {
      seq: 0,
      at: Date.now(),
      kind: "call",
      summary: callSummary(method, params, call.sent),
      method,
      caller: this.#callerOf(connection),
      outcome: undefined,
      durationMs: undefined,
      traceId: traceIdOf(call.traceparent),
      before: undefined,
      after: undefined,
    };
    const pictures = call.acts ? this.#pictures : null;
    if (pictures === null) {
      return {
        end: (outcome, durationMs) => {
          entry.outcome = outcome;
          entry.durationMs = rounded(durationMs);
          timeline.ring.push(entry);
          return undefined;
        },
      };
    }
    const ready = pictures.take(timeline.tabId, true).then((picture) => (entry.before = picture));
    return {
      ready,
      end: async (outcome, durationMs) => {
        entry.outcome = outcome;
        entry.durationMs = rounded(durationMs);
        // A tab the call closed has no after.
        if (!timeline.isClosed) entry.after = await pictures.take(timeline.tabId, false);
        timeline.ring.push(entry);
      },
    };
  }

  /** The caller as entries name it, one object per connection while it acts for the same one. */
  #callerOf(connection: ConnectionState): NonNullable<TimelineEntry["caller"]> {
    const who = connection.who ?? `connection ${connection.id}`;
    const known = this.#callers.get(connection);
    if (known?.who === who) return known;
    const caller = { kind: connection.kind ?? "rpc", who };
    this.#callers.set(connection, caller);
    return caller;
  }
}

function rounded(ms: number): number {
  return Math.round(ms * 10) / 10;
}
