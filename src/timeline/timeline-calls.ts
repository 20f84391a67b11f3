import type { TimelinePicture } from "../protocol/types.js";
import type { CallHook, HookedCall, HookedRecord } from "../rpc/call-hook.js";
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

  constructor(timelines: TabTimelines, pictures: TimelinePictures | null) {
    this.#timelines = timelines;
    this.#pictures = pictures;
  }

  begin(call: HookedCall): HookedRecord | undefined {
    const target = call.params.target;
    if (typeof target !== "string") return undefined;
    const timeline = this.#timelines.forCall(target, call.connection);
    if (!timeline) return undefined;
    const at = Date.now();
    const { method, params, connection } = call;
    const traceId = traceIdOf(call.traceparent);
    const entry = {
      at,
      kind: "call" as const,
      summary: callSummary(method, params, call.sent),
      method,
      caller: { kind: connection.kind ?? ("rpc" as const), who: connection.who ?? `connection ${connection.id}` },
      ...(traceId === undefined ? {} : { traceId }),
    };
    const pictures = call.acts ? this.#pictures : null;
    if (pictures === null) {
      return { end: (outcome, durationMs) => void timeline.ring.push({ ...entry, outcome, durationMs: rounded(durationMs) }) };
    }
    let before: TimelinePicture | undefined;
    const ready = pictures.take(timeline.tabId, true).then((picture) => (before = picture));
    return {
      ready,
      end: async (outcome, durationMs) => {
        // A tab the call closed has no after.
        const after = timeline.isClosed ? undefined : await pictures.take(timeline.tabId, false);
        timeline.ring.push({
          ...entry,
          outcome,
          durationMs: rounded(durationMs),
          ...(before ? { before } : {}),
          ...(after ? { after } : {}),
        });
      },
    };
  }
}

function rounded(ms: number): number {
  return Math.round(ms * 10) / 10;
}
