/** One line of the bench table: a figure for tabwire, its alternative in the same run, and their ratio against the goal. */
export interface Figure {
  name: string;
  hub: number;
  alternative: number;
  unit: string;
  ratio: number;
  goal: string;
}
