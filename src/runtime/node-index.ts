/** A DOM node as one of the two sources knows it: Chrome's backendNodeId, or the id the hub's page script gave it in a world. */
export type NodeKey = { backendNodeId: number } | { contextId: number; pageNode: number };

/**
 * Values by DOM node, within a scope (a process and document: "" for the tab's own). The tab's own nodes, nearly all
 * of them, are found by number without building a key string, since a snapshot looks up every node it shows.
 */
export class NodeIndex<T> {
  #backend = new Map<number, T>();
  /** The tab's own nodes by page-script id, per world context. */
  #worlds = new Map<number, Map<number, T>>();
  /** Nodes of cross-site frames, by a key naming scope and node. */
  #remote = new Map<string, T>();

  /** The value of `node` in `scope`. */
  get(scope: string, node: NodeKey): T | undefined {
    if (scope !== "") return this.#remote.get(remoteKey(scope, node));
    return "backendNodeId" in node ? this.#backend.get(node.backendNodeId) : this.#worlds.get(node.contextId)?.get(node.pageNode);
  }

  /** Sets the value of `node` in `scope`. */
  set(scope: string, node: NodeKey, value: T): void {
    if (scope !== "") this.#remote.set(remoteKey(scope, node), value);
    else if ("backendNodeId" in node) this.#backend.set(node.backendNodeId, value);
    else {
      let world = this.#worlds.get(node.contextId);
      if (!world) this.#worlds.set(node.contextId, (world = new Map()));
      world.set(node.pageNode, value);
    }
  }

  /** Forgets `node` in `scope`. */
  delete(scope: string, node: NodeKey): void {
    if (scope !== "") this.#remote.delete(remoteKey(scope, node));
    else if ("backendNodeId" in node) this.#backend.delete(node.backendNodeId);
    else {
      const world = this.#worlds.get(node.contextId);
      world?.delete(node.pageNode);
      if (world?.size === 0) this.#worlds.delete(node.contextId);
    }
  }

  /** Forgets every node. */
  clear(): void {
    this.#backend.clear();
    this.#worlds.clear();
    this.#remote.clear();
  }
}

function remoteKey(scope: string, node: NodeKey): string {
  return "backendNodeId" in node ? `b${scope}|${node.backendNodeId}` : `w${scope}|${node.contextId}.${node.pageNode}`;
}
