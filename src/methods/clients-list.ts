import { defineMethod } from "../services.js";

/** `clients.list`: the clients the caller may see, with their tabs. */
export const clientsList = defineMethod({
  name: "clients.list",
  run: (_params, call) => Promise.resolve({ clients: call.services.clients.clients(call.connection) }),
});
