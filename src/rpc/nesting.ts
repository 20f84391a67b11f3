/** How deep params may nest: deeper values cannot be passed on to Chrome or written back (stack limits). */
export const MAX_PARAMS_DEPTH = 64;

/** The JSON pointer of the first value nested deeper than `maxDepth` objects and arrays, or null; no recursion. */
export function tooDeep(value: unknown, maxDepth: number): string | null {
  const stack: [unknown, number, string][] = [[value, 0, ""]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, depth, path] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth >= maxDepth) return path || "/";
    for (const [key, child] of Object.entries(item)) stack.push([child, depth + 1, `${path}/${key}`]);
  }
  return null;
}
