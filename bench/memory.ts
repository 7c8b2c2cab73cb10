// `npm run bench:memory`: the resident memory of the built app (server.js, what `npm start`
// runs) on PGlite and on PostgreSQL: after start, after 1,000 and after 10,000 page loads spread
// over every public page, after 100 purchases through the built-in checkout, and the peak (the
// kernel's high-water mark, VmHWM). Targets: PostgreSQL ≤ 150 MB steady; PGlite ≤ 300 MB steady
// and ≤ 400 MB peak; RSS after 10,000 loads within 10 % of RSS after 1,000 (no growth with
// traffic). PostgreSQL is measured when BENCH_DATABASE_URL / TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test) answers; a throw-away database is made and dropped.
// BENCH_SHORT=1 (npm run bench): 1,000 then 4,000 loads, 50 purchases.
import fs from "node:fs";
import os from "node:os";
import { buildIfStale } from "../scripts/build-if-stale.js";
import { createScratchPostgres } from "../tests/support/scratch-postgres.ts";
import { startProductionServer } from "./support/production-server.mjs";
import { reportFigure, SHORT } from "./support/results.mjs";
import { benchPostgresUrl, postgresReachable } from "./support/postgres.ts";

const FIRST_LOADS = 1_000;
const LATER_LOADS = Number(process.env.BENCH_LOADS ?? (SHORT ? 4_000 : 10_000));
const PURCHASES = Number(process.env.BENCH_PURCHASES ?? (SHORT ? 50 : 100));
const METRICS_TOKEN = "memory-bench-metrics-token-0123456789";
/** Page loads in flight at once: a handful of visitors, not a load test. */
const CONCURRENCY = 8;
const SAMPLE_POST = "/blog/watch-dstv-abroad";
const PUBLIC_PAGES = [
  "/",
  "/pricing",
  "/how-it-works",
  "/tutorial",
  "/reviews",
  "/contact",
  "/terms",
  "/privacy",
  "/refund-policy",
  "/blog",
  SAMPLE_POST,
  "/check",
  "/get-started",
  "/get-started/details",
  "/get-started/payment",
  "/blog/rss.xml",
  "/sitemap.xml",
];
const TARGETS = {
  postgres: { steady: 150, peak: undefined },
  pglite: { steady: 300, peak: 400 },
} as const;

type Kind = keyof typeof TARGETS;

/** Current and peak resident set of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/**
 * Where the resident memory is, from the kernel's map of the process (Linux smaps), in MB:
 * WebAssembly memory (PGlite's: a read-write mapping right before its multi-GB guard region),
 * malloc's thread arenas (64 MB-aligned blocks that threads such as libuv's pool and V8's
 * compilers allocate from), malloc's main heap, the node binary and libraries (file-backed), and
 * the rest (V8's heap pages and large allocations).
 */
function breakdownOf(pid: number): string {
  const regions: Array<{ start: number; end: number; name: string; rss: number; readable: boolean }> = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header)
      regions.push({
        start: parseInt(header[1]!, 16),
        end: parseInt(header[2]!, 16),
        readable: header[3]!.startsWith("r"),
        name: header[4]!,
        rss: 0,
      });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) regions.at(-1)!.rss = Number(rss[1]) / 1024;
  }
  const sums = { wasm: 0, arenas: 0, mallocHeap: 0, files: 0, other: 0 };
  const ARENA = 64 * 1024 * 1024;
  regions.forEach((region, index) => {
    const next = regions[index + 1];
    if (region.name.startsWith("/")) sums.files += region.rss;
    else if (region.name === "[heap]") sums.mallocHeap += region.rss;
    else if (region.name) sums.other += region.rss;
    else if (next && !next.readable && next.start === region.end && next.end - next.start >= 2 ** 32)
      sums.wasm += region.rss;
    else if (region.start % ARENA === 0 && region.end - region.start <= ARENA) sums.arenas += region.rss;
    else sums.other += region.rss;
  });
  const mb = (value: number) => value.toFixed(0);
  return `wasm ${mb(sums.wasm)}, malloc arenas ${mb(sums.arenas)} + heap ${mb(sums.mallocHeap)}, files ${mb(sums.files)}, other anonymous ${mb(sums.other)} MB`;
}

/** Where the memory is, from the app's own /metrics: V8 heap used and total, and off-heap buffers, in MB. */
async function heapOf(base: string): Promise<string> {
  const text = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, "m").exec(text);
    return match ? `${(Number(match[1]) / 1048576).toFixed(0)}` : "?";
  };
  return `heap ${value("nodejs_heap_size_used_bytes")}/${value("nodejs_heap_size_total_bytes")} MB, external ${value("nodejs_external_memory_bytes")} MB`;
}

async function whereOf(base: string, pid: number): Promise<string> {
  return `${await heapOf(base)}; ${breakdownOf(pid)}`;
}

async function loadPages(base: string, count: number, offset: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const page = PUBLIC_PAGES[(offset + next++) % PUBLIC_PAGES.length]!;
        const response = await fetch(`${base}${page}`, { headers: { "accept-encoding": "gzip, br" } });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${page} answered ${response.status}`);
      }
    }),
  );
}

/** A buyer pays on the built-in checkout (the card that succeeds), which fulfils the order. */
async function purchase(base: string, index: number): Promise<void> {
  const client = { "x-forwarded-for": `198.51.100.${(index % 250) + 1}` };
  const checkout = await fetch(`${base}/api/create-checkout`, {
    method: "POST",
    headers: { ...client, "content-type": "application/json" },
    body: JSON.stringify({ planId: "basic-monthly", customerEmail: `memory${index}@example.com` }),
  });
  if (!checkout.ok) throw new Error(`create-checkout answered ${checkout.status}: ${await checkout.text()}`);
  const sessionId = ((await checkout.json()) as { url: string }).url.split("/").pop()!;
  const paid = await fetch(`${base}/checkout/${sessionId}`, {
    method: "POST",
    headers: { ...client, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }).toString(),
    redirect: "manual",
  });
  if (paid.status !== 302) throw new Error(`the built-in checkout answered ${paid.status}`);
}

async function measure(kind: Kind, postgresUrl: string) {
  const scratch =
    kind === "postgres"
      ? await createScratchPostgres({ serverUrl: postgresUrl, prefix: "naijalink_memory", poolMax: 1 })
      : undefined;
  const server = await startProductionServer({
    env: {
      SEED_SAMPLE_CONTENT: "true",
      TRUST_PROXY: "1",
      METRICS_TOKEN,
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    },
  });
  try {
    const heaps: string[] = [];
    const afterStart = memoryOf(server.pid).rss;
    heaps.push(`start: ${await whereOf(server.base, server.pid)}`);
    await loadPages(server.base, FIRST_LOADS, 0);
    const afterFirst = memoryOf(server.pid).rss;
    heaps.push(`${FIRST_LOADS} loads: ${await whereOf(server.base, server.pid)}`);
    await loadPages(server.base, LATER_LOADS - FIRST_LOADS, FIRST_LOADS);
    const afterLater = memoryOf(server.pid).rss;
    heaps.push(`${LATER_LOADS} loads: ${await whereOf(server.base, server.pid)}`);
    for (let index = 0; index < PURCHASES; index++) await purchase(server.base, index);
    const afterPurchases = memoryOf(server.pid).rss;
    heaps.push(`${PURCHASES} purchases: ${await whereOf(server.base, server.pid)}`);
    const peak = memoryOf(server.pid).peak;
    return { kind, afterStart, afterFirst, afterLater, afterPurchases, peak, heaps };
  } finally {
    await server.stop();
    await scratch?.close();
  }
}

buildIfStale();
const postgresUrl = benchPostgresUrl;
// BENCH_DB=pglite or postgres: one of the two only.
const kinds: Kind[] = process.env.BENCH_DB === "postgres" ? [] : ["pglite"];
if (process.env.BENCH_DB === "pglite") {
  /* PGlite only */
} else if (await postgresReachable(postgresUrl)) kinds.push("postgres");
else console.log("PostgreSQL not reachable: PGlite only");

const mb = (value: number) => `${value.toFixed(0)} MB`;
console.log(
  `memory benchmark: RSS of the built app; ${FIRST_LOADS} then ${LATER_LOADS} loads over ${PUBLIC_PAGES.length} public pages (${CONCURRENCY} at a time), ${PURCHASES} purchases`,
);
let failed = false;
for (const kind of kinds) {
  const result = await measure(kind, postgresUrl);
  const target = TARGETS[kind];
  const steady = Math.max(result.afterLater, result.afterPurchases);
  const growth = ((result.afterLater - result.afterFirst) / result.afterFirst) * 100;
  console.log(
    `${kind.padEnd(8)} start ${mb(result.afterStart)} | ${FIRST_LOADS} loads ${mb(result.afterFirst)} | ${LATER_LOADS} loads ${mb(result.afterLater)} (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %) | ${PURCHASES} purchases ${mb(result.afterPurchases)} | peak ${mb(result.peak)} | load average ${os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(" ")}`,
  );
  for (const heap of result.heaps) console.log(`${"".padEnd(8)} ${heap}`);
  const name = `memory ${kind}`;
  reportFigure({
    figure: `${name}: RSS after start`,
    value: result.afterStart,
    unit: "MB",
    max: target.steady,
  });
  reportFigure({ figure: `${name}: RSS after ${FIRST_LOADS} loads`, value: result.afterFirst, unit: "MB" });
  reportFigure({
    figure: `${name}: RSS steady (${LATER_LOADS} loads, ${PURCHASES} purchases)`,
    value: steady,
    unit: "MB",
    max: target.steady,
  });
  reportFigure({
    figure: `${name}: growth ${FIRST_LOADS} → ${LATER_LOADS} loads`,
    value: growth,
    unit: "%",
    max: 10,
  });
  reportFigure({
    figure: `${name}: peak RSS`,
    value: result.peak,
    unit: "MB",
    ...(target.peak ? { max: target.peak } : {}),
  });
  if (steady > target.steady || growth > 10 || (target.peak && result.peak > target.peak)) failed = true;
}
process.exit(failed ? 1 : 0);
