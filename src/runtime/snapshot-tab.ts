import { randomUUID } from "node:crypto";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError, isHubError } from "../errors.js";
import type { Result } from "../protocol/types.js";
import { buildAxTree } from "./ax-tree.js";
import { refTableOf } from "./ref-registry.js";

/** The params of `snapshot` once validated and defaulted. */
export interface SnapshotOptions {
  interestingOnly: boolean;
  maxDepth?: number;
}

/** The result of `snapshot` (docs/protocol.md section 5, "Page structure and capture"). */
export type Snapshot = Result<"snapshot">;

/** Takes the accessibility tree of the tab's main frame and makes its refs the ones callOn resolves on this tab. */
export async function snapshotTab(tab: TabSession, options: SnapshotOptions, budget: Budget): Promise<Snapshot> {
  let hasNavigated = false;
  const stopWatching = tab.onNavigated(() => {
    hasNavigated = true;
  });
  try {
    const [{ nodes }, { targetInfo }] = await Promise.all([
      tab.send("Accessibility.getFullAXTree", {}, { budget }),
      tab.send("Target.getTargetInfo", {}, { budget }),
    ]).catch((error: unknown) => Promise.reject(hasNavigated && !isHubError(error) ? pageNavigated() : error));
    // Refs of a tree from the document that just went away would name nodes of no page.
    if (hasNavigated) throw pageNavigated();
    // From reading nextRef to replace() nothing awaits, so two snapshots of one tab never hand out the same refs.
    const table = refTableOf(tab);
    const firstRef = table.nextRef;
    const tree = buildAxTree(nodes, { ...options, firstRef });
    const snapshotId = randomUUID();
    table.replace({ snapshotId, firstRef, nextRef: tree.nextRef, refs: tree.refs });
    return { snapshotId, url: targetInfo.url, title: targetInfo.title, text: tree.text, root: tree.root };
  } finally {
    stopWatching();
  }
}

function pageNavigated(): HubError {
  return new HubError("PAGE_NAVIGATED", "the page navigated while the snapshot was taken; take it again");
}
