import { snapshotTab } from "../runtime/snapshot-tab.js";
import { acquireTab, defineMethod } from "../services.js";

/** `snapshot`: the tab's accessibility tree, as JSON and as text, with refs that callOn takes. */
export const snapshot = defineMethod("snapshot", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  return snapshotTab(tab, params, call.budget);
});
