import { acquireTab, defineMethod } from "../services.js";

/** `network.conditions`: the tab's network offline, or slowed to a latency and throughputs; all left out is a normal network. */
export const networkConditions = defineMethod("network.conditions", { runs: "tab", needs: "script" }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  const conditions = {
    offline: params.offline ?? false,
    latencyMs: params.latencyMs ?? 0,
    downloadBps: params.downloadBps ?? 0,
    uploadBps: params.uploadBps ?? 0,
  };
  await call.services.emulation.setNetwork(tab, conditions, call.budget);
  return conditions;
});
