/** The parts of a V8 CPU profile (the inspector's `Profiler.stop`) this module reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
}

/**
 * The share of a profile's busy samples that belong to one package: a sample is the package's when the first frame of
 * JavaScript code up its stack (the hub's own or a package's) is in `node_modules/<name>/`; native and internal frames
 * (promise jobs, JSON, buffers) are counted for the code that called them. Idle samples are left out.
 */
export function packageShare(profile: CpuProfile, name: string): { share: number; busySamples: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const owners = new Map<number, string>();
  const ownerOf = (leaf: number): string => {
    let owner = owners.get(leaf);
    if (owner !== undefined) return owner;
    owner = "";
    for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
      const url = nodes.get(id)?.callFrame.url ?? "";
      const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (inPackage?.[1]) owner = inPackage[1];
      else if (url.includes("/dist/src/")) owner = "tabwire";
      if (owner) break;
    }
    owners.set(leaf, owner);
    return owner;
  };
  let busy = 0;
  let theirs = 0;
  for (const sample of profile.samples) {
    if (nodes.get(sample)?.callFrame.functionName === "(idle)") continue;
    busy++;
    if (ownerOf(sample) === name) theirs++;
  }
  return { share: busy > 0 ? theirs / busy : 0, busySamples: busy };
}
