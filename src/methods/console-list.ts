import { defineMethod } from "../services.js";

interface ConsoleListParams {
  target: string;
  limit: number;
  sinceNavigation: boolean;
}

/** `console.list`: what the tab logged recently, oldest first. */
export const consoleList = defineMethod<ConsoleListParams>({
  name: "console.list",
  run(params, call) {
    const entry = call.services.clients.resolve(params.target, call.connection);
    return Promise.resolve({ messages: call.services.console.list(entry.tabId, params.limit, params.sinceNavigation) });
  },
});
