import { defineMethod } from "../services.js";

/** `ping`: the hub is alive; answers its clock. */
export const ping = defineMethod("ping", { runs: "here", needs: "connection", reads: true }, () =>
  Promise.resolve({ pong: true, time: Date.now() }),
);
