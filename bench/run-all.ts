// `npm run bench`: every benchmark in its short mode (BENCH_SHORT=1), one after another, then ONE
// table: figure, target, pass/fail, and the load average each ran under (the machine may be shared:
// read a figure with its load). Each benchmark stays runnable alone (`npm run bench:<name>`) with
// its full workload; here they write their figures through bench/support/results.mjs. Their own
// output goes to a log file each, named at the end. Exits 1 when a figure misses its target.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { figureVerdict, printFigureTable, type BenchFigure } from "./support/results.mjs";
import { buildIfStale } from "../scripts/build-if-stale.js";

const root = path.resolve(import.meta.dirname, "..");
const tsx = path.join(root, "node_modules/.bin/tsx");

interface Bench {
  name: string;
  command: string[];
  env?: Record<string, string>;
  /** Why it cannot run here, or null. */
  unavailable?: () => string | null;
}

const chromium = process.env.CHROME_PATH || "/usr/bin/chromium";
const BENCHES: Bench[] = [
  { name: "fulfilment", command: [tsx, "bench/fulfilment.ts"] },
  { name: "peer-apply", command: [tsx, "bench/peer-apply.ts"] },
  { name: "peer-live", command: [tsx, "bench/peer-live.ts"] },
  { name: "public-pages", command: ["node", "bench/public-pages/run.mjs"] },
  { name: "memory", command: [tsx, "bench/memory.ts"] },
  {
    name: "lighthouse",
    command: ["node", "bench/lighthouse.mjs"],
    unavailable: () => (fs.existsSync(chromium) ? null : `no Chromium at ${chromium}`),
  },
];

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

interface Row extends BenchFigure {
  load: string;
}

function runOne(bench: Bench, resultsFile: string, logFile: string): Promise<number> {
  const log = fs.openSync(logFile, "w");
  const child = spawn("nice", bench.command, {
    cwd: root,
    env: { ...process.env, ...bench.env, BENCH_SHORT: "1", BENCH_RESULTS: resultsFile },
    stdio: ["ignore", log, log],
  });
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      fs.closeSync(log);
      resolve(code ?? 1);
    });
  });
}

function lastLine(file: string): string {
  const lines = fs.readFileSync(file, "utf8").trim().split("\n");
  return (lines.at(-1) ?? "").slice(0, 100);
}

buildIfStale();
const only = process.argv.slice(2);
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "naijalink-bench-"));
const rows: Row[] = [];
const notes: string[] = [];
const started = performance.now();
for (const bench of BENCHES.filter((bench) => only.length === 0 || only.includes(bench.name))) {
  const reason = bench.unavailable?.();
  if (reason) {
    notes.push(`${bench.name}: skipped (${reason})`);
    continue;
  }
  const resultsFile = path.join(logDir, `${bench.name}.jsonl`);
  const logFile = path.join(logDir, `${bench.name}.log`);
  console.log(`running ${bench.name} (load average ${loadAverage()})…`);
  const code = await runOne(bench, resultsFile, logFile);
  const load = loadAverage();
  const figures = fs.existsSync(resultsFile)
    ? fs
        .readFileSync(resultsFile, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as BenchFigure)
    : [];
  rows.push(...figures.map((figure) => ({ ...figure, load })));
  // A benchmark exits 1 when it misses a target; that shows as FAIL rows, not as a note.
  if (code !== 0 && figures.length === 0) notes.push(`${bench.name}: no figures (${lastLine(logFile)})`);
  else if (code !== 0 && !figures.some((figure) => figureVerdict(figure) === "FAIL"))
    notes.push(`${bench.name}: exited ${code} (see its log)`);
}

const missedTarget = printFigureTable(rows, notes);
console.log(
  `${os.cpus().length} CPUs, Node ${process.version}; ${((performance.now() - started) / 60_000).toFixed(1)} min; logs in ${logDir}`,
);
process.exit(missedTarget || notes.length > 0 ? 1 : 0);
