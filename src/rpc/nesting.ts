/** How deep params may nest: deeper values cannot be passed on to Chrome or written back (stack limits). */
export const MAX_PARAMS_DEPTH = 64;

interface Visit {
  value: unknown;
  depth: number;
  key: string;
  parent: Visit | null;
}

/** The JSON pointer of the first value nested deeper than `maxDepth` objects and arrays, or null; no recursion. */
export function tooDeep(value: unknown, maxDepth: number): string | null {
  const stack: Visit[] = [{ value, depth: 0, key: "", parent: null }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const item = visit.value;
    if (item === null || typeof item !== "object") continue;
    if (visit.depth >= maxDepth) return pointerOf(visit) || "/";
    for (const [key, child] of Object.entries(item)) stack.push({ value: child, depth: visit.depth + 1, key, parent: visit });
  }
  return null;
}

// Spelled out only for the value that is too deep, not for every value walked: params are on every call's path.
function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().map((key) => `/${key}`).join("");
}
