// Benchmark: configs issued per second and verify-payment latency under 200 concurrent buyers.
// Run: npm run bench:fulfilment   (PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL
// points at a server; default postgres://postgres@127.0.0.1:5432/test, a throw-away database
// is created and dropped). Calls go in-process through the built app (React Router handler +
// domain + database), as tests/support/app.ts does; no HTTP socket. The bundle migrates the
// database itself (tests/support/database.ts needs vitest's import.meta.glob, so it is not used).
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { buildIfStale } from "../scripts/build-if-stale.js";
import { createScratchPostgres } from "../tests/support/scratch-postgres.ts";
import type { DatabaseKind } from "#server/db/client.ts";
import { queryRows } from "#server/db/client.ts";
import { checkoutSessions } from "#server/db/schema/index.ts";
import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { wrapPglite, type DatabaseHandle } from "#server/db/client.ts";
import type { Config } from "#server/config.ts";
import type { AppServices } from "#server/services.ts";

const BUYERS = Number(process.env.BENCH_BUYERS ?? 200);
/** BENCH_TRACE=1: PGlite only, and print what each SQL statement cost (time inside PGlite). */
const TRACE = process.env.BENCH_TRACE === "1";
const statementCosts = new Map<string, { count: number; ms: number }>();

function traceStatements(client: PGlite) {
  type Query = PGlite["query"];
  const timed = (query: Query, self: unknown): Query =>
    (async (...args: Parameters<Query>) => {
      const begin = performance.now();
      try {
        return await (query.apply(self, args) as ReturnType<Query>);
      } finally {
        const key = String(args[0]).replace(/\s+/g, " ").slice(0, 90);
        const entry = statementCosts.get(key) ?? { count: 0, ms: 0 };
        entry.count += 1;
        entry.ms += performance.now() - begin;
        statementCosts.set(key, entry);
      }
    }) as Query;
  const query = client.query.bind(client);
  client.query = timed(query, client);
  const transaction = client.transaction.bind(client);
  client.transaction = ((callback: Parameters<PGlite["transaction"]>[0]) =>
    transaction(async (tx) => {
      tx.query = timed(tx.query.bind(tx), tx);
      return callback(tx);
    })) as PGlite["transaction"];
}

function printStatementCosts(buyers: number) {
  const rows = [...statementCosts.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  console.log(
    `statement costs (PGlite, last round, per buyer = first + repeat verification; time includes waiting for the connection):`,
  );
  for (const [statement, { count, ms }] of rows)
    console.log(
      `${(ms / buyers).toFixed(2).padStart(7)} ms ${(count / buyers).toFixed(2).padStart(5)}x  ${statement}`,
    );
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PLANS = ["unlock", "basic-monthly", "pro-monthly", "pro-yearly"];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function paidSessions(app: BenchApp, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const response = await app.request("/api/create-checkout", {
      json: { planId: PLANS[index % PLANS.length], customerEmail: `buyer${index}@example.com` },
      clientIp: `10.1.${Math.floor(index / 250)}.${index % 250}`,
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

async function verifyAll(app: BenchApp, ids: string[]) {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    ids.map(async (sessionId) => {
      const begin = performance.now();
      const response = await app.request("/api/verify-payment", { json: { sessionId } });
      const body = (await response.json()) as { success?: boolean; downloadUrl?: string };
      latencies.push(performance.now() - begin);
      if (!body.success || !body.downloadUrl) failures++;
    }),
  );
  return { wallMs: performance.now() - started, latencies, failures };
}

interface BenchApp {
  services: AppServices;
  request(path: string, init: { json: unknown; clientIp?: string }): Promise<Response>;
  close(): Promise<void>;
}

interface ServerBundle {
  loadConfig(env: Record<string, string | undefined>): Config;
  startServices(
    config: Config,
    options: { database: DatabaseHandle; backgroundJobs: boolean },
  ): Promise<{ services: AppServices; close(): Promise<void> }>;
  createFetchHandler(services: AppServices): (request: Request, clientIp?: string) => Promise<Response>;
}

async function openDatabase(kind: DatabaseKind): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const client = new PGlite();
    await client.waitReady;
    if (TRACE) traceStatements(client);
    return wrapPglite(client);
  }
  // The pool size the app uses in production (server/db/client.ts).
  return createScratchPostgres({
    serverUrl: process.env.TEST_DATABASE_URL!,
    prefix: "naijalink_bench",
    poolMax: 10,
  });
}

async function createBenchApp(kind: DatabaseKind): Promise<BenchApp> {
  const bundle = (await import(
    path.resolve(import.meta.dirname, "../build/server/index.js")
  )) as ServerBundle;
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
  const database = await openDatabase(kind);
  const running = await bundle.startServices(config, { database, backgroundJobs: false });
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

async function run(kind: DatabaseKind) {
  const app = await createBenchApp(kind);
  try {
    const first: number[] = [];
    const repeat: number[] = [];
    let issued = 0;
    let wallMs = 0;
    let failures = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await paidSessions(app, BUYERS);
      if (TRACE) statementCosts.clear(); // only the verifications count
      const fresh = await verifyAll(app, ids); // fulfilment: subscription + first device + e-mail
      const again = await verifyAll(app, ids); // the success page reloaded: slot 1 again
      first.push(...fresh.latencies);
      repeat.push(...again.latencies);
      issued += ids.length - fresh.failures;
      wallMs += fresh.wallMs;
      failures += fresh.failures + again.failures;
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
      buyers: BUYERS,
      rounds: ROUNDS,
      configsPerSecond: Math.round((issued / wallMs) * 1000),
      firstVerify: { p50: percentile(first, 50), p99: percentile(first, 99) },
      repeatVerify: { p50: percentile(repeat, 50), p99: percentile(repeat, 99) },
      failures,
      duplicateAddresses: Number(dupes!.v4) + Number(dupes!.v6),
    };
  } finally {
    await app.close();
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

buildIfStale();
const postgresUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const kinds: DatabaseKind[] = ["pglite"];
if (TRACE) {
  // statements only
} else if (await postgresReachable(postgresUrl)) {
  process.env.TEST_DATABASE_URL = postgresUrl;
  kinds.push("postgres");
} else {
  console.log(`PostgreSQL not reachable at ${postgresUrl.replace(/\/\/[^@]*@/, "//")}: PGlite only`);
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(
  `fulfilment benchmark: ${BUYERS} concurrent buyers x ${ROUNDS} rounds, target >= 500 configs/s, p99 <= 50 ms`,
);
let failed = false;
for (const kind of kinds) {
  const result = await run(kind);
  console.log(
    [
      `${result.kind.padEnd(8)} configs issued/s: ${result.configsPerSecond}`,
      `first verify-payment p50 ${ms(result.firstVerify.p50)} p99 ${ms(result.firstVerify.p99)}`,
      `repeat verify-payment p50 ${ms(result.repeatVerify.p50)} p99 ${ms(result.repeatVerify.p99)}`,
      `failures ${result.failures}`,
      `duplicate addresses ${result.duplicateAddresses}`,
    ].join(" | "),
  );
  if (result.duplicateAddresses !== 0 || result.failures !== 0) failed = true;
}
if (TRACE) printStatementCosts(BUYERS);
process.exit(failed ? 1 : 0);
