import { snapshotTab, type SnapshotOptions } from "../runtime/snapshot-tab.js";
import { acquireTab, defineMethod } from "../services.js";

interface SnapshotParams extends SnapshotOptions {
  target: string;
}

/** `snapshot`: the tab's accessibility tree, as JSON and as text, with refs that callOn takes. */
export const snapshot = defineMethod<SnapshotParams>({
  name: "snapshot",
  async run(params, call) {
    const { tab } = await acquireTab(call, params.target);
    return snapshotTab(tab, params, call.budget);
  },
});
