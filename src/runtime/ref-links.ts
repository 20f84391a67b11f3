import type { Budget } from "../budget.js";
import { RemoteFrames, type FrameSession } from "../cdp/remote-frames.js";
import type { TabSession } from "../cdp/tab-session.js";
import { isContextGone } from "../cdp/protocol-errors.js";
import { isHubError } from "../errors.js";
import { nextObjectGroup } from "./guarded-call.js";
import { buildAxTree, type AxTreeOptions, type SnapshotAxNode } from "./ax-tree.js";
import type { RefRegistry, WorldAddress } from "./ref-registry.js";

/** What a snapshot read: its nodes, from which source, and how its tree is shaped. */
interface SnapshotRead {
  registry: RefRegistry;
  nodes: readonly SnapshotAxNode[];
  options: Omit<AxTreeOptions, "refs"> & { source: "chrome" | "dom" };
}

/**
 * Before a snapshot hands out refs, links the elements it shows to the refs the other source gave them: a `chrome`
 * snapshot finds the backendNodeIds of elements only a `dom` one saw; a `dom` snapshot, those of the elements it shows
 * that it has no ref for, when some refs are known only by their backendNodeId (the tree is shaped once without refs
 * to know which those are).
 */
export async function linkSnapshotRefs(tab: TabSession, read: SnapshotRead, budget: Budget): Promise<void> {
  const { registry, nodes, options } = read;
  if (options.source === "chrome") return linkWorldRefs(tab, registry, budget);
  if (!registry.hasBackendOnly) return;
  const unknown: WorldAddress[] = [];
  const probe = {
    refOf: (address: Parameters<RefRegistry["refOf"]>[0]): string => {
      if (address && "pageNode" in address && registry.existing(address) === undefined) unknown.push(address);
      return "";
    },
    existing: (address: Parameters<RefRegistry["existing"]>[0]) => registry.existing(address),
  };
  buildAxTree(nodes, { ...options, refs: probe });
  await linkNewWorldNodes(tab, { registry, addresses: unknown }, budget);
}

// Runs in the world the ids were given in: their nodes, null for those the page let go.
const NODES_OF_IDS = "(ids) => ids.map((id) => globalThis.__tabwire?.byId.get(id)?.deref() ?? null)";

/**
 * Before a `chrome` snapshot hands out refs: finds the backendNodeId of every element that so far only a `dom`
 * snapshot saw, so that the element keeps the ref it has; those whose node is gone are forgotten. Costs nothing while
 * every ref is known by its backendNodeId.
 */
async function linkWorldRefs(tab: TabSession, registry: RefRegistry, budget: Budget): Promise<void> {
  if (!registry.hasWorldOnly) return;
  await linkByWorld(tab, { registry, addresses: registry.worldOnly(), forgetGone: true }, budget);
}

/**
 * Before a `dom` snapshot (or an action's changes) hands out refs to nodes `addresses` it has no ref for: finds their
 * backendNodeId when some refs are known only by theirs (a `chrome` snapshot saw them), so that an element one source
 * named keeps its ref in the other's. Costs nothing while no ref is known only by its backendNodeId.
 */
export async function linkNewWorldNodes(
  tab: TabSession,
  nodes: { registry: RefRegistry; addresses: readonly WorldAddress[] },
  budget: Budget,
): Promise<void> {
  const { registry, addresses } = nodes;
  if (!registry.hasBackendOnly || addresses.length === 0) return;
  await linkByWorld(tab, { registry, addresses, forgetGone: false }, budget);
}

/** Links each node of `addresses` to its backendNodeId, one call per world; `forgetGone` forgets those whose node is gone. */
async function linkByWorld(
  tab: TabSession,
  nodes: { registry: RefRegistry; addresses: readonly WorldAddress[]; forgetGone: boolean },
  budget: Budget,
): Promise<void> {
  const { registry, forgetGone } = nodes;
  await Promise.all(
    [...byWorld(nodes.addresses)].map(async ([, group]) => {
      const ids = await backendNodeIds(tab, group, budget);
      group.forEach((address, index) => {
        const id = ids[index];
        if (typeof id === "number") registry.link(address, id);
        else if (forgetGone) registry.forget(address);
      });
    }),
  );
}

/** The addresses grouped by the world they were read in (a process, a document, a context). */
function byWorld(addresses: readonly WorldAddress[]): Map<string, WorldAddress[]> {
  const groups = new Map<string, WorldAddress[]>();
  for (const address of addresses) {
    const key = `${address.remoteFrame ?? ""}@${address.document ?? ""}/${address.contextId}`;
    const group = groups.get(key);
    if (group) group.push(address);
    else groups.set(key, [address]);
  }
  return groups;
}

/**
 * The backendNodeIds of nodes of one world, in order (null for a node the page let go): one call answers them as an
 * array, whose items DOM.describeNode names one by one, all sent at once. Nothing when the world is gone.
 */
async function backendNodeIds(tab: TabSession, addresses: readonly WorldAddress[], budget: Budget): Promise<(number | null)[]> {
  const [first] = addresses;
  if (!first) return [];
  const objectGroup = nextObjectGroup();
  const none = addresses.map(() => null);
  let session: FrameSession = tab;
  try {
    if (first.remoteFrame !== undefined) session = await RemoteFrames.of(tab).session(first.remoteFrame, budget);
    const { result } = await session.send(
      "Runtime.evaluate",
      {
        expression: `(${NODES_OF_IDS})(${JSON.stringify(addresses.map((address) => address.pageNode))})`,
        contextId: first.contextId,
        objectGroup,
      },
      { budget },
    );
    if (!result.objectId) return none;
    const { result: items } = await session.send("Runtime.getProperties", { objectId: result.objectId, ownProperties: true }, { budget });
    const objectIds = new Map(items.map((item) => [item.name, item.value?.objectId]));
    return await Promise.all(
      addresses.map(async (_, index) => {
        const objectId = objectIds.get(String(index));
        if (!objectId) return null;
        const described = await session.send("DOM.describeNode", { objectId }, { budget }).catch(() => null);
        return described?.node.backendNodeId ?? null;
      }),
    );
  } catch (error) {
    // The world (or the frame) went with its document: its nodes have no backendNodeId to find.
    if (isContextGone(error) || isHubError(error, "NODE_NOT_FOUND")) return none;
    throw error;
  } finally {
    session.send("Runtime.releaseObjectGroup", { objectGroup }).catch(() => {});
  }
}
