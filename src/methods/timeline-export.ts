import { HubError } from "../errors.js";
import { defineMethod } from "../services.js";
import { timelineFile } from "../timeline/timeline-file.js";
import { HUB_VERSION } from "../version.js";

/** `timeline.export`: a tab's whole timeline as one JSON-lines file, pictures inline; OVERLOADED past MAX_RESULT_BYTES. */
export const timelineExport = defineMethod(
  "timeline.export",
  { runs: "tab", needs: "read", reads: true, unrecorded: true },
  (params, call) => {
    const timeline = call.services.timelines.read(params.target, call.connection);
    const { content, entries } = timelineFile({ ...timeline, target: params.target }, HUB_VERSION);
    const bytes = Buffer.byteLength(content);
    const maxBytes = call.services.config.maxResultBytes;
    if (bytes > maxBytes) {
      const message = `the timeline takes ${bytes} bytes, more than MAX_RESULT_BYTES (${maxBytes}); read it in pages with timeline.get`;
      throw new HubError("OVERLOADED", message, { maxBytes });
    }
    return Promise.resolve({ content, entries, bytes });
  },
);
