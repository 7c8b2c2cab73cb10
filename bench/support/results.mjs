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
