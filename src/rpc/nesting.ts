/** How deep params may nest: deeper values cannot be passed on to Chrome or written back (stack limits). */
export const MAX_PARAMS_DEPTH = 64;

/** How deep a whole frame or body may nest: params at MAX_PARAMS_DEPTH inside a request inside a batch. */
export const MAX_FRAME_DEPTH = MAX_PARAMS_DEPTH + 2;

/** What walking a value found: where it first nests too deep (a JSON pointer, or null) and how many values it holds. */
export interface Nesting {
  deepAt: string | null;
  values: number;
}

interface Visit {
  value: unknown;
  depth: number;
  key: string;
  parent: Visit | null;
}

/**
 * Walks a parsed frame, params or body once, without recursion: the JSON pointer of the first value nested deeper
 * than `maxDepth` objects and arrays (the walk stops there), and how many values it counted.
 */
export function nestingOf(value: unknown, maxDepth: number): Nesting {
  const stack: Visit[] = [{ value, depth: 0, key: "", parent: null }];
  let values = 0;
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    values++;
    const item = visit.value;
    if (item === null || typeof item !== "object") continue;
    if (visit.depth >= maxDepth) return { deepAt: pointerOf(visit) || "/", values };
    for (const key in item) stack.push({ value: (item as Record<string, unknown>)[key], depth: visit.depth + 1, key, parent: visit });
  }
  return { deepAt: null, values };
}

/** The JSON pointer of the first value nested deeper than `maxDepth` objects and arrays, or null. */
export function tooDeep(value: unknown, maxDepth: number): string | null {
  return nestingOf(value, maxDepth).deepAt;
}

// Spelled out only for the value that is too deep, not for every value walked: params are on every call's path.
function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys
    .reverse()
    .map((key) => `/${key.slice(0, 50)}`)
    .join("");
}
