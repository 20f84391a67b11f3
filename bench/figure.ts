/** One line of the bench table: a figure for tabwire, its alternative in the same run, and their ratio against the goal. */
export interface Figure {
  name: string;
  /** A short name for the chart. */
  label: string;
  hub: number;
  alternative: number;
  unit: string;
  ratio: number;
  /** `<= 1.3`, `>= 0.9`, or `(report)` for a figure without a goal. */
  goal: string;
}

/** Whether the ratio meets the goal: true or false, null for a figure that has no goal. */
export function isGoalMet(figure: Pick<Figure, "ratio" | "goal">): boolean | null {
  const match = /^(<=|>=)\s*([\d.]+)$/.exec(figure.goal.trim());
  if (!match?.[2]) return null;
  const bound = Number(match[2]);
  return match[1] === "<=" ? figure.ratio <= bound : figure.ratio >= bound;
}

/** The numeric bound of a goal, or null for `(report)`. */
export function goalBound(goal: string): number | null {
  const match = /^(?:<=|>=)\s*([\d.]+)$/.exec(goal.trim());
  return match?.[1] ? Number(match[1]) : null;
}
