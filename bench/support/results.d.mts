export interface BenchFigure {
  /** What was measured, e.g. "fulfilment pglite: paced verify-payment p99". */
  figure: string;
  value: number;
  unit: string;
  /** The goal: at most `max`, or at least `min`; neither when the figure is informational. */
  max?: number;
  min?: number;
}

export const SHORT: boolean;
export function reportFigure(figure: BenchFigure): void;
export function figureVerdict(row: BenchFigure): "pass" | "FAIL" | "info";
export function printFigureTable(rows: Array<BenchFigure & { load: string }>, notes: string[]): boolean;
