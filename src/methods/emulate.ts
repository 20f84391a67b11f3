import { HubError } from "../errors.js";
import { acquireTab, defineMethod } from "../services.js";

/** `emulate`: makes the tab look like another device, place or user (viewport, user agent, locale, time zone...); `reset` undoes it all. */
export const emulate = defineMethod("emulate", { runs: "tab", needs: "script" }, async (params, call) => {
  const { reset, target, timeoutMs: _budget, ...change } = params;
  if (reset === true && Object.keys(change).length > 0) {
    const message = "reset undoes every emulation; give it alone, then emulate again";
    throw new HubError("INVALID_PARAMS", message, { errors: [{ path: "/reset", message }] });
  }
  const { entry, tab } = await acquireTab(call, target);
  const { emulation, clients, browser } = call.services;
  if (reset === true) {
    await emulation.reset(tab, call.budget);
    return {};
  }
  if (change.geolocation) {
    // A page asks before it reads its place: the tab's client (its browser context only) answers yes.
    const context = clients.contexts.existing(entry.clientId) ?? {};
    await browser.connection().send("Browser.grantPermissions", { permissions: ["geolocation"], ...context }, { budget: call.budget });
  }
  await emulation.emulate(tab, change, call.budget);
  return {};
});
