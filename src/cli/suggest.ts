/** The name among `names` closest to a mistyped `name`, when one is close enough to be what was meant. */
export function closestName(name: string, names: readonly string[]): string | undefined {
  const typed = name.toLowerCase();
  // One slip in a short name, two in a longer one, as git's and npm's suggestions allow.
  const allowed = typed.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(typed, candidate);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours each cost one. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, (before[j - 2] ?? 0) + 1);
      current.push(distance);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
