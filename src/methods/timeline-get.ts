import { defineMethod } from "../services.js";

/** `timeline.get`: a tab's timeline after `since`, at most `limit` entries and MAX_RESULT_BYTES together. */
export const timelineGet = defineMethod("timeline.get", { runs: "tab", needs: "read", reads: true, unrecorded: true }, (params, call) => {
  const timeline = call.services.timelines.read(params.target, call.connection);
  const since = params.since ?? 0;
  const entries = timeline.ring.after(since, params.limit ?? 200, { maxBytes: call.services.config.maxResultBytes });
  return Promise.resolve({
    target: params.target,
    entries,
    next: entries.at(-1)?.seq ?? Math.max(since, 0),
    total: timeline.ring.size,
    ...(timeline.isClosed ? { closed: true } : {}),
  });
});
