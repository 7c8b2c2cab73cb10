// Benchmark: configs issued per second and verify-payment latency with 200 concurrent buyers.
// Run: npm run bench:fulfilment   (PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL
// points at a server; default postgres://postgres@127.0.0.1:5432/test, a throw-away database
// is created and dropped). Calls go in-process through the built app (React Router handler +
// domain + database), as tests/support/app.ts does; no HTTP socket. The bundle migrates the
// database itself (tests/support/database.ts needs vitest's import.meta.glob, so it is not used).
//
// Two phases per database:
// - burst: all 200 buyers call verify-payment at the same instant (BENCH_ROUNDS times), then
//   again (the success page reloaded). Gives the capacity: configs issued per second. Its
//   latencies are queueing for the whole burst, printed for completeness. Two unmeasured bursts
//   before warm the JIT, as a server that has been selling is warm.
// - paced: the same 200 buyers, each paying and verifying every 200/BENCH_RATE seconds
//   (random phase), i.e. BENCH_RATE configs/s offered (default 50), for BENCH_PURCHASES
//   purchases per buyer. Latency counts from each purchase's scheduled start, so a stall that
//   delays later buyers is counted, not hidden (no coordinated omission). Target: p99 <= 50 ms.
// The outbox worker sends the config e-mails alongside, as in production (BENCH_MAIL=0: off).
import { eq, sql } from "drizzle-orm";
import { buildIfStale } from "../scripts/build-if-stale.js";
import { createScratchPostgres } from "../tests/support/scratch-postgres.ts";
import type { Logger } from "drizzle-orm";
import type { DatabaseKind } from "#server/db/client.ts";
import { StatementCounter, type StatementCount } from "./support/statement-counter.ts";
import { reportFigure, SHORT } from "./support/results.mjs";
import { queryRows } from "#server/db/client.ts";
import { checkoutSessions } from "#server/db/schema/index.ts";
import fs from "node:fs/promises";
import inspector from "node:inspector";
import { monitorEventLoopDelay } from "node:perf_hooks";
import os from "node:os";
import path from "node:path";
import {
  PGLITE_EXTENSIONS,
  PGLITE_SETTINGS,
  PGliteTakingTurns,
  wrapPglite,
  type DatabaseHandle,
} from "#server/db/client.ts";
import type { AppServices } from "#server/services.ts";
import { benchPostgresUrl, postgresReachable } from "./support/postgres.ts";
import { loadServerBundle } from "./support/server-bundle.ts";

// As in production (server.js): React and Express take their production paths.
process.env.NODE_ENV ??= "production";
// BENCH_SHORT=1 (npm run bench): 100 buyers, one burst round, two paced purchases each.
const BUYERS = Number(process.env.BENCH_BUYERS ?? (SHORT ? 100 : 200));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (SHORT ? 1 : 3));
const RATE = Number(process.env.BENCH_RATE ?? 50);
const WARM_UP_ROUNDS = 2;
const PURCHASES = Number(process.env.BENCH_PURCHASES ?? (SHORT ? 2 : 5));
/** The outbox worker runs alongside, as in production; its backlog is drained and timed at the end. */
const MAIL = process.env.BENCH_MAIL !== "0";
/** BENCH_CPU_PROFILE=file.cpuprofile: a V8 CPU profile of the verifications only (open it in Chrome DevTools). */
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
const inspectorSession = CPU_PROFILE ? new inspector.Session() : undefined;
inspectorSession?.connect();
const post = (method: string) =>
  new Promise<unknown>((resolve, reject) =>
    inspectorSession!.post(method, (error, result) => (error ? reject(error) : resolve(result))),
  );
const PLANS = ["unlock", "basic-monthly", "pro-monthly", "pro-yearly"];

/** A caller address for the n-th buyer (no traffic is sent; only the per-client limits read it). */
function documentationAddress(index: number): string {
  const blocks = ["192.0.2", "198.51.100", "203.0.113"];
  return `${blocks[Math.floor(index / 250) % blocks.length]}.${(index % 250) + 1}`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function paidSessions(app: BenchApp, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await app.request("/api/create-checkout", {
      json: { planId: PLANS[index % PLANS.length], customerEmail: `buyer${index}@example.com` },
      clientIp: documentationAddress(index),
    });
    const { url } = (await response.json()) as { url: string };
    ids.push(url.split("/").pop()!);
  }
  // The buyers paid on the hosted checkout; recording that is not what is measured.
  for (const id of ids) {
    await app.services.db
      .update(checkoutSessions)
      .set({ status: "paid", paidAt: new Date(), paymentReference: `pi_bench_${id}` })
      .where(eq(checkoutSessions.id, id));
  }
  return ids;
}

/**
 * One verify-payment call, answering only whether it issued a config: nothing of the response
 * outlives it (a buyer's loop would otherwise hold its last response across the wait for its
 * next purchase, and the client's garbage would be counted against the server's heap).
 */
async function verifyOnce(app: BenchApp, sessionId: string, buyer: number): Promise<boolean> {
  // Each buyer calls from an address of its own, as real buyers do (verify-payment is limited per client).
  const response = await app.request("/api/verify-payment", {
    json: { sessionId },
    clientIp: documentationAddress(buyer),
  });
  const body = (await response.json()) as { success?: boolean; downloadUrl?: string };
  return Boolean(body.success && body.downloadUrl);
}

async function verifyAll(app: BenchApp, ids: string[]) {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    ids.map(async (sessionId, buyer) => {
      const begin = performance.now();
      const issued = await verifyOnce(app, sessionId, buyer);
      latencies.push(performance.now() - begin);
      if (!issued) failures++;
    }),
  );
  return { wallMs: performance.now() - started, latencies, failures };
}

interface BenchApp {
  services: AppServices;
  request(path: string, init: { json: unknown; clientIp?: string }): Promise<Response>;
  close(): Promise<void>;
}

async function openDatabase(kind: DatabaseKind, dataDir: string, logger?: Logger): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    // Where the app keeps it (server/db/client.ts): on disk under DATA_DIR, not in memory.
    const client = new PGliteTakingTurns(path.join(dataDir, "pglite"), {
      postgresqlconf: PGLITE_SETTINGS,
      extensions: PGLITE_EXTENSIONS,
    });
    await client.waitReady;
    return wrapPglite(client, logger);
  }
  // The pool size the app uses in production (server/db/client.ts).
  return createScratchPostgres({
    serverUrl: process.env.TEST_DATABASE_URL!,
    prefix: "naijalink_bench",
    poolMax: 10,
    logger,
  });
}

async function createBenchApp(
  kind: DatabaseKind,
  options: { backgroundJobs: boolean; logger?: Logger } = { backgroundJobs: MAIL },
): Promise<BenchApp> {
  const bundle = await loadServerBundle();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-bench-"));
  const config = bundle.loadConfig({
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:3000",
    LOG_LEVEL: "warn",
    SEED_SAMPLE_CONTENT: "false",
    CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0123",
  });
  const database = await openDatabase(kind, dataDir, options.logger);
  const running = await bundle.startServices(config, { database, backgroundJobs: options.backgroundJobs });
  const handle = bundle.createFetchHandler(running.services);
  return {
    services: running.services,
    request: (requestPath, init) =>
      handle(
        new Request(new URL(requestPath, config.PUBLIC_URL), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(init.json),
        }),
        init.clientIp ?? "127.0.0.1",
      ),
    async close() {
      await running.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!inspectorSession) return work();
  await post("Profiler.enable");
  await post("Profiler.start");
  const result = await work();
  const { profile } = (await post("Profiler.stop")) as { profile: unknown };
  await fs.writeFile(`${CPU_PROFILE}.${name}.cpuprofile`, JSON.stringify(profile));
  return result;
}

/** Each buyer starts a purchase every `intervalMs`; latency is measured from the scheduled start. */
async function paced(app: BenchApp, ids: string[]) {
  const intervalMs = (BUYERS / RATE) * 1000;
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: BUYERS }, async (_, buyer) => {
      const phase = Math.random() * intervalMs;
      for (let purchase = 0; purchase < PURCHASES; purchase++) {
        const sessionId = ids[purchase * BUYERS + buyer]!;
        const scheduled = started + phase + purchase * intervalMs;
        const wait = scheduled - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const issued = await verifyOnce(app, sessionId, buyer);
        latencies.push(performance.now() - scheduled);
        if (!issued) failures++;
      }
    }),
  );
  return { wallMs: performance.now() - started, latencies, failures };
}

/**
 * The SQL one purchase costs: a paid session's first verify-payment (fulfilment: subscription,
 * receipt, first device, config e-mail), then the success page reloaded. Counted in an app of its
 * own with the outbox worker off, so only the purchase's statements are seen.
 */
async function countStatements(kind: DatabaseKind) {
  const counter = new StatementCounter(kind === "postgres");
  const app = await createBenchApp(kind, { backgroundJobs: false, logger: counter });
  try {
    const [id] = await paidSessions(app, 1);
    const first = await counter.recording(() => verifyOnce(app, id!, 0));
    const reload = await counter.recording(() => verifyOnce(app, id!, 0));
    return { first, reload };
  } finally {
    await app.close();
  }
}

function describeCount(count: StatementCount): string {
  const transactions =
    count.transactions === null
      ? ""
      : `, ${count.transactions} transaction${count.transactions === 1 ? "" : "s"} holding ${count.insideTransactions}`;
  return `${count.statements} statements${transactions}`;
}

async function run(kind: DatabaseKind) {
  const statements = await countStatements(kind);
  const app = await createBenchApp(kind);
  try {
    const first: number[] = [];
    const repeat: number[] = [];
    let issued = 0;
    let wallMs = 0;
    let failures = 0;
    // A server that has been selling runs compiled code: the first burst of a new process is the
    // JIT's warm-up (a third slower here), not its capacity. Two unmeasured bursts first.
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      const warmUp = await paidSessions(app, BUYERS);
      failures += (await verifyAll(app, warmUp)).failures + (await verifyAll(app, warmUp)).failures;
    }
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await paidSessions(app, BUYERS);
      const { fresh, again } = await profiled(`${kind}.burst`, async () => ({
        fresh: await verifyAll(app, ids), // fulfilment: subscription + first device + e-mail
        again: await verifyAll(app, ids), // the success page reloaded: slot 1 again
      }));
      first.push(...fresh.latencies);
      repeat.push(...again.latencies);
      issued += ids.length - fresh.failures;
      wallMs += fresh.wallMs;
      failures += fresh.failures + again.failures;
    }

    const pacedIds = await paidSessions(app, BUYERS * PURCHASES);
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const steady = await profiled(`${kind}.paced`, () => paced(app, pacedIds));
    loopDelay.disable();
    failures += steady.failures;
    steady.latencies.sort((a, b) => a - b);
    let mail: { sentDuringRun: number; queued: number; drainMs: number } | undefined;
    if (MAIL) {
      const sentCount = async () =>
        (
          await queryRows<{ sent: number; queued: number }>(
            app.services.db,
            sql`select (count(*) filter (where status = 'sent'))::int as sent, count(*)::int as queued from outbox_messages`,
          )
        )[0]!;
      const { sent: sentDuringRun, queued } = await sentCount();
      const drainStarted = performance.now();
      await app.services.mail.drain();
      mail = { sentDuringRun, queued, drainMs: performance.now() - drainStarted };
      if ((await sentCount()).sent !== queued) throw new Error("the outbox did not drain");
    }

    const [dupes] = await queryRows<{ v4: number; v6: number }>(
      app.services.db,
      sql`select
            (select count(*) from (select 1 from devices where revoked_at is null group by vpn_server_id, ipv4 having count(*) > 1) a)::int as v4,
            (select count(*) from (select 1 from devices where revoked_at is null group by vpn_server_id, ipv6 having count(*) > 1) b)::int as v6`,
    );
    first.sort((a, b) => a - b);
    repeat.sort((a, b) => a - b);
    return {
      kind,
      statements,
      configsPerSecond: Math.round((issued / wallMs) * 1000),
      firstVerify: { p50: percentile(first, 50), p99: percentile(first, 99) },
      repeatVerify: { p50: percentile(repeat, 50), p99: percentile(repeat, 99) },
      paced: {
        configsPerSecond: Math.round(((pacedIds.length - steady.failures) / steady.wallMs) * 1000),
        p50: percentile(steady.latencies, 50),
        p99: percentile(steady.latencies, 99),
        eventLoopDelayP99: loopDelay.percentile(99) / 1e6,
      },
      failures,
      mail,
      duplicateAddresses: Number(dupes!.v4) + Number(dupes!.v6),
    };
  } finally {
    await app.close();
  }
}

buildIfStale();
const postgresUrl = benchPostgresUrl;
/** BENCH_DATABASES=postgres or =pglite: that database alone. */
const onlyDatabase = process.env.BENCH_DATABASES as DatabaseKind | undefined;
const kinds: DatabaseKind[] = onlyDatabase === "postgres" ? [] : ["pglite"];
if (onlyDatabase === "pglite") {
  // PGlite alone, as asked.
} else if (await postgresReachable(postgresUrl)) {
  process.env.TEST_DATABASE_URL = postgresUrl;
  kinds.push("postgres");
} else {
  console.log(`PostgreSQL not reachable at ${postgresUrl.replace(/\/\/[^@]*@/, "//")}: PGlite only`);
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(
  `fulfilment benchmark: ${BUYERS} concurrent buyers; burst: all at once x ${ROUNDS} rounds; paced: ${RATE} configs/s offered, ${PURCHASES} purchases per buyer. target: paced p99 <= 50 ms`,
);
let failed = false;
for (const kind of kinds) {
  const result = await run(kind);
  console.log(
    [
      `${result.kind.padEnd(8)} burst: configs issued/s ${result.configsPerSecond}`,
      `first verify-payment p50 ${ms(result.firstVerify.p50)} p99 ${ms(result.firstVerify.p99)}`,
      `repeat p50 ${ms(result.repeatVerify.p50)} p99 ${ms(result.repeatVerify.p99)}`,
    ].join(" | "),
  );
  console.log(
    `${"".padEnd(8)} one purchase: first verify-payment ${describeCount(result.statements.first)}; reload ${describeCount(result.statements.reload)}`,
  );
  if (process.env.BENCH_STATEMENTS === "1") console.log(result.statements.first.log.join("\n"));
  console.log(
    [
      `${"".padEnd(8)} paced: configs issued/s ${result.paced.configsPerSecond}`,
      `verify-payment p50 ${ms(result.paced.p50)} p99 ${ms(result.paced.p99)}`,
      `event-loop delay p99 ${ms(result.paced.eventLoopDelayP99)}`,
      `failures ${result.failures}`,
      `duplicate addresses ${result.duplicateAddresses}`,
    ].join(" | "),
  );
  if (result.mail)
    console.log(
      `${"".padEnd(8)} outbox worker on: ${result.mail.sentDuringRun} of ${result.mail.queued} config e-mails sent during the run; the rest drained in ${(result.mail.drainMs / 1000).toFixed(1)} s`,
    );
  if (result.duplicateAddresses !== 0 || result.failures !== 0) failed = true;
  const name = `fulfilment ${result.kind}`;
  reportFigure({
    figure: `${name}: statements per purchase`,
    value: result.statements.first.statements,
    unit: "",
    max: 8,
  });
  if (result.statements.first.transactions !== null)
    reportFigure({
      figure: `${name}: transactions per purchase`,
      value: result.statements.first.transactions,
      unit: "",
      max: 1,
    });
  reportFigure({ figure: `${name}: paced verify-payment p99`, value: result.paced.p99, unit: "ms", max: 50 });
  reportFigure({
    figure: `${name}: burst configs/s`,
    value: result.configsPerSecond,
    unit: "/s",
    ...(result.kind === "postgres" ? { min: 150 } : {}),
  });
  reportFigure({
    figure: `${name}: failures and duplicate addresses`,
    value: result.failures + result.duplicateAddresses,
    unit: "",
    max: 0,
  });
}
process.exit(failed ? 1 : 0);
