import { defineMethod } from "../services.js";

/** `events.subscribe`: tab.opened / tab.closed notifications for every client this connection may see. */
export const eventsSubscribe = defineMethod(
  "events.subscribe",
  { runs: "here", needs: "read", subscription: "topics", reads: true },
  (params, call) => {
    const topics = [...new Set(params.topics)];
    call.services.eventTopics.subscribe(call.connection, topics);
    return Promise.resolve({ topics });
  },
);
