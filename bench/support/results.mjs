// What each benchmark hands to `npm run bench` (bench/run-all.ts): one JSON line per figure,
// appended to the file named by BENCH_RESULTS. Run alone, a benchmark prints its own report and
// this does nothing.
import fs from "node:fs";

/** True for a short run under `npm run bench` (each benchmark shrinks its own workload). */
export const SHORT = process.env.BENCH_SHORT === "1";

/** @param {import("./results.d.mts").BenchFigure} figure */
export function reportFigure(figure) {
  const file = process.env.BENCH_RESULTS;
  if (file) fs.appendFileSync(file, `${JSON.stringify(figure)}\n`);
}

/** @param {import("./results.d.mts").BenchFigure} row */
export function figureVerdict(row) {
  if (row.max !== undefined) return row.value <= row.max ? "pass" : "FAIL";
  if (row.min !== undefined) return row.value >= row.min ? "pass" : "FAIL";
  return "info";
}

/** @param {import("./results.d.mts").BenchFigure} row */
function figureTarget(row) {
  if (row.max !== undefined) return `≤ ${row.max}${row.unit ? ` ${row.unit}` : ""}`;
  if (row.min !== undefined) return `≥ ${row.min}${row.unit ? ` ${row.unit}` : ""}`;
  return "—";
}

/** @param {import("./results.d.mts").BenchFigure} row */
function figureValue(row) {
  const value = Number.isInteger(row.value) ? String(row.value) : row.value.toFixed(1);
  return row.unit ? `${value} ${row.unit}` : value;
}

/**
 * Prints the figures as the benchmarks' one table (value, target, pass/FAIL, load average), then
 * the notes; true when a figure missed its target.
 * @param {Array<import("./results.d.mts").BenchFigure & { load: string }>} rows
 * @param {string[]} notes
 */
export function printFigureTable(rows, notes) {
  const header = ["figure", "value", "target", "result", "load avg (1 5 15 min)"];
  const table = rows.map((row) => [
    row.figure,
    figureValue(row),
    figureTarget(row),
    figureVerdict(row),
    row.load,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...table.map((cells) => cells[column].length)),
  );
  const line = (/** @type {string[]} */ cells) =>
    cells.map((cell, column) => cell.padEnd(widths[column])).join("  ");
  console.log("");
  console.log(line(header));
  console.log(line(widths.map((width) => "-".repeat(width))));
  for (const cells of table) console.log(line(cells));
  console.log("");
  for (const note of notes) console.log(note);
  return rows.some((row) => figureVerdict(row) === "FAIL");
}
