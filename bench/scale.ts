// `npm run bench:scale`: the staff console, the customer's account, the jobs, the exports and the
// backup on a two-year shop instead of a nearly empty one (issue 39). A fresh PostgreSQL database
// (BENCH_DATABASE_URL / TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; made
// and dropped) is migrated by the app's own start-up, then filled with set-based SQL
// (bench/support/scale-seed.ts): 100,000 customers, 120,000 subscriptions in every state, 150,000
// devices over 20 servers, the ledger of every charge, renewal, plan change, refund and dispute,
// 1,000,000 audit rows, 500,000 sent e-mails and 10,000 contact messages. Then a PGlite shop of
// 20,000 customers (BENCH_PGLITE_SCALE, default 0.2 of it) gets the console, account and job
// figures. BENCH_SCALE=0.1 shrinks both for a quick run.
//
// Calls go in-process through the built app (React Router handler + domain + database), as
// bench/fulfilment.ts does; the CSV export's memory is the server's own: `node server.js`
// (what `npm start` runs) on the same database, its resident set read from /proc while a full
// export downloads. Every statement the measured pages, the jobs and one purchase send is then
// EXPLAINed on PostgreSQL: a sequential scan of a table over 10,000 rows is listed.
import http from "node:http";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { signJWT } from "better-auth/crypto";
import { and, desc, eq, sql, type Logger } from "drizzle-orm";
import pg from "pg";
import { buildIfStale } from "../scripts/build-if-stale.js";
import { createScratchPostgres } from "../tests/support/scratch-postgres.ts";
import type { Config } from "#server/config.ts";
import {
  PGLITE_EXTENSIONS,
  PGLITE_SETTINGS,
  PGliteTakingTurns,
  queryRows,
  wrapPglite,
  type DatabaseHandle,
} from "#server/db/client.ts";
import type { DatabaseKind } from "#server/db/client.ts";
import { checkoutSessions, outboxMessages } from "#server/db/schema/index.ts";
import { serveWaitingBuyers } from "#server/domain/billing/waiting-buyers.ts";
import { storedEmailOf, unsealStoredEmail } from "#server/domain/mail/outbox.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { createBackup } from "#server/domain/ops/backup/backup.ts";
import { purgeStale } from "#server/domain/ops/housekeeping.ts";
import type { AppServices } from "#server/services.ts";
import { benchPostgresUrl, postgresReachable } from "./support/postgres.ts";
import { startProductionServer } from "./support/production-server.mjs";
import { printFigureTable, reportFigure, type BenchFigure } from "./support/results.mjs";
import { MANY_SUBSCRIPTIONS_EMAIL, seedStatements, shopSize, type ShopSize } from "./support/scale-seed.ts";
import { loadServerBundle, type ServerBundle } from "./support/server-bundle.ts";

process.env.NODE_ENV ??= "production";
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const PGLITE_SCALE = Number(process.env.BENCH_PGLITE_SCALE ?? 0.2) * SCALE;
/** Timed requests per page, after three unmeasured ones. */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const STAFF_EMAIL = "scale-admin@naijalink.example";
const PASSWORD = "correct horse battery staple";
const SECRET = "bench-secret-bench-secret-bench-secret-0123";
const ENCRYPTION_KEY = Buffer.alloc(32, 7).toString("base64");
const CUSTOMER_COOKIE = "naijalink-customer.session_token";
/** A table larger than this must not be read whole by a console or fulfilment query. */
const SEQ_SCAN_ROWS = 10_000;

/** Remembers each distinct statement (with one set of its parameters) sent while `area` is set. */
class StatementRecorder implements Logger {
  area: string | null = null;
  readonly seen = new Map<string, { area: string; params: unknown[] }>();
  logQuery(query: string, params: unknown[]): void {
    if (this.area && !this.seen.has(query)) this.seen.set(query, { area: this.area, params });
  }
}

type Figure = BenchFigure & { load: string };
const figures: Figure[] = [];
const notes: string[] = [];
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
function figure(entry: Omit<Figure, "load">) {
  figures.push({ ...entry, load: loadAverage() });
  reportFigure(entry);
  const target = entry.max !== undefined ? ` (target ≤ ${entry.max})` : "";
  const value = Number.isInteger(entry.value) ? String(entry.value) : entry.value.toFixed(1);
  console.log(`  ${entry.figure}: ${value} ${entry.unit}${target}`);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Shop {
  kind: DatabaseKind;
  size: ShopSize;
  services: AppServices;
  config: Config;
  dataDir: string;
  databaseUrl?: string;
  recorder: StatementRecorder;
  request(target: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

async function openShop(bundle: ServerBundle, kind: DatabaseKind, scale: number): Promise<Shop> {
  const size = shopSize(scale);
  const recorder = new StatementRecorder();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-scale-"));
  let database: DatabaseHandle & { url?: string };
  if (kind === "pglite") {
    const client = new PGliteTakingTurns(path.join(dataDir, "pglite"), {
      postgresqlconf: PGLITE_SETTINGS,
      extensions: PGLITE_EXTENSIONS,
    });
    await client.waitReady;
    database = wrapPglite(client, recorder);
  } else {
    database = await createScratchPostgres({
      serverUrl: benchPostgresUrl,
      prefix: "naijalink_scale",
      poolMax: 10,
      logger: recorder,
    });
  }
  const config = bundle.loadConfig({
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:3000",
    LOG_LEVEL: "warn",
    SEED_SAMPLE_CONTENT: "false",
    CONFIG_ENCRYPTION_KEY: ENCRYPTION_KEY,
    BETTER_AUTH_SECRET: SECRET,
    STAFF_ADMINS: STAFF_EMAIL,
    STAFF_REQUIRE_TOTP: "false",
  });
  // Starting migrates the empty database with the app's own migrator.
  const running = await bundle.startServices(config, { database, backgroundJobs: false });
  const handle = bundle.createFetchHandler(running.services);
  let client = 0;
  return {
    kind,
    size,
    services: running.services,
    config,
    dataDir,
    databaseUrl: database.url,
    recorder,
    request(target, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      headers.set("origin", config.PUBLIC_URL);
      if (json !== undefined) headers.set("content-type", "application/json");
      return handle(
        new Request(new URL(target, config.PUBLIC_URL), {
          ...rest,
          method: rest.method ?? (json !== undefined ? "POST" : "GET"),
          headers,
          body: json !== undefined ? JSON.stringify(json) : rest.body,
          redirect: "manual",
        }),
        // Every request from an address of its own: the per-client limits are not measured.
        `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client++ & 255}`,
      );
    },
    async close() {
      await running.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function seed(shop: Shop) {
  const sealed = {
    device: shop.services.sealer.seal("bench-not-a-real-key-bench-not-a-real-key="),
    email: shop.services.sealer.seal(
      JSON.stringify(
        storedEmailOf({
          template: "contact",
          to: "support@naijalink.example",
          replyTo: "ada@example.com",
          data: { name: "Ada", email: "ada@example.com", subject: "A question", message: "Hello" },
        }),
      ),
    ),
  };
  const started = performance.now();
  for (const statement of seedStatements(shop.size, sealed))
    await shop.services.db.execute(sql.raw(statement));
  const seconds = (performance.now() - started) / 1000;
  const [counts] = await queryRows<Record<string, number>>(
    shop.services.db,
    sql`select (select count(*) from subscriptions)::int as subscriptions, (select count(*) from devices)::int as devices,
               (select count(*) from ledger_entries)::int as ledger, (select count(*) from staff_audit_log)::int as audit,
               (select count(*) from outbox_messages)::int as emails, (select count(*) from checkout_sessions)::int as checkouts`,
  );
  console.log(
    `  seeded in ${seconds.toFixed(1)} s: ${Object.entries(counts!)
      .map(([name, count]) => `${count} ${name}`)
      .join(", ")}`,
  );
  figure({ figure: `scale ${shop.kind}: seeding the shop`, value: seconds, unit: "s" });
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

async function expectOk(response: Response, what: string) {
  if (response.status >= 400)
    throw new Error(`${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
}

/** A staff admin signed up, confirmed (the e-mailed token, minted here) and signed in. */
async function staffCookie(shop: Shop): Promise<string> {
  await expectOk(
    await shop.request("/api/auth/sign-up/email", {
      json: { email: STAFF_EMAIL, password: PASSWORD, name: "Scale bench", callbackURL: "/admin" },
    }),
    "staff sign-up",
  );
  const token = await signJWT({ email: STAFF_EMAIL }, SECRET, 3600);
  await expectOk(
    await shop.request("/api/auth/confirm-email", { json: { token, password: PASSWORD } }),
    "confirm",
  );
  const signedIn = await shop.request("/api/auth/sign-in/email", {
    json: { email: STAFF_EMAIL, password: PASSWORD },
  });
  await expectOk(signedIn, "staff sign-in");
  return cookiesOf(signedIn);
}

/** The customer with ten subscriptions, signed in through the e-mailed link as a buyer does. */
async function customerCookie(shop: Shop): Promise<string> {
  await expectOk(
    await shop.request("/api/account/auth/sign-in/magic-link", {
      json: {
        email: MANY_SUBSCRIPTIONS_EMAIL,
        callbackURL: "/account",
        errorCallbackURL: "/account?sign-in=failed",
      },
    }),
    "sign-in link",
  );
  await shop.services.mail.detachedSettled();
  const [row] = await shop.services.db
    .select()
    .from(outboxMessages)
    .where(
      and(eq(outboxMessages.kind, "account.sign-in"), eq(outboxMessages.toAddress, MANY_SUBSCRIPTIONS_EMAIL)),
    )
    .orderBy(desc(outboxMessages.createdAt))
    .limit(1);
  const stored = unsealStoredEmail(shop.services.sealer, row!.sealedMessage) as { data?: { url?: string } };
  const page = await shop.request(stored.data!.url!);
  const html = await page.text();
  const action = /<form[^>]* action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error("the sign-in link opened no Sign in form");
  const target = new URL(action, shop.config.PUBLIC_URL);
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    target.searchParams.set(name!, value!.replaceAll("&amp;", "&"));
  const signedIn = await shop.request(target.toString());
  const cookie = cookiesOf(signedIn)
    .split("; ")
    .find((pair) => pair.startsWith(`${CUSTOMER_COOKIE}=`));
  if (!cookie) throw new Error("the customer's sign-in set no session cookie");
  return cookie;
}

/** p95 of GET `target` over SAMPLES calls (three before, unmeasured); its statements recorded. */
async function timePage(shop: Shop, name: string, target: string, cookie: string, max: number) {
  shop.recorder.area = name;
  for (let warm = 0; warm < 3; warm++) {
    const response = await shop.request(target, { headers: { cookie } });
    await expectOk(response, `${name} (${target})`);
    if (response.status !== 200) throw new Error(`${name} (${target}) answered ${response.status}`);
    await response.arrayBuffer();
    shop.recorder.area = null;
  }
  const times: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = performance.now();
    const response = await shop.request(target, { headers: { cookie } });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  figure({ figure: `scale ${shop.kind}: ${name} p95`, value: percentile(times, 95), unit: "ms", max });
}

/** Rows the measured pages look up, by the numbers the seed gave them. */
async function landmarks(shop: Shop) {
  const pick = Math.max(11, Math.floor(shop.size.subscriptions * 0.37));
  const device = Math.max(1, Math.floor(shop.size.devices * 0.61));
  const [row] = await queryRows<{
    subscription_id: string;
    name: string;
    email: string;
    device_key: string;
    device_ip: string;
  }>(
    shop.services.db,
    sql`select s.id as subscription_id, c.customer_name as name, s.customer_email as email,
               d.public_key as device_key, d.ipv4 as device_ip
        from subscriptions s join checkout_sessions c on c.id = s.checkout_session_id,
             devices d
        where s.checkout_session_id = ${`cs_bench_${pick}`} and d.name = ${`Device ${device}`}`,
  );
  const orderNumber = row!.subscription_id
    .replace(/-/g, "")
    .slice(0, 12)
    .toUpperCase()
    .match(/.{4}/g)!
    .join("-");
  return { ...row!, orderNumber };
}

async function consoleFigures(shop: Shop, staff: string) {
  const spot = await landmarks(shop);
  const deepPage = Math.max(1, Math.min(500, Math.floor(shop.size.subscriptions / 20)));
  const search = (q: string) => `/admin/orders?status=all&q=${encodeURIComponent(q)}`;
  // The cursor a Next link to the deep page carries (decision 131): the row before the page.
  const cursorBefore = async (join: string) => {
    const [row] = await queryRows<{ cursor: string }>(
      shop.services.db,
      sql.raw(`select c.created_at::text || '|' || c.id as cursor from checkout_sessions c ${join}
               order by c.created_at desc, c.id desc offset ${(deepPage - 1) * 20 - 1} limit 1`),
    );
    return encodeURIComponent(row!.cursor);
  };
  const ordersCursor = await cursorBefore("where c.status = 'paid'");
  const subscriptionsCursor = await cursorBefore("join subscriptions s on s.checkout_session_id = c.id");
  const pages: Array<[string, string]> = [
    ["dashboard", "/admin"],
    ["orders, first page", "/admin/orders"],
    [`orders, page ${deepPage} by its number`, `/admin/orders?page=${deepPage}`],
    [`orders, page ${deepPage} by a Next link`, `/admin/orders?page=${deepPage}&after=${ordersCursor}`],
    ["subscriptions, first page", "/admin/subscriptions"],
    [`subscriptions, page ${deepPage} by its number`, `/admin/subscriptions?page=${deepPage}`],
    [
      `subscriptions, page ${deepPage} by a Next link`,
      `/admin/subscriptions?page=${deepPage}&after=${subscriptionsCursor}`,
    ],
    ["a subscription's page", `/admin/subscriptions/${spot.subscription_id}`],
    ["search by e-mail", search(spot.email)],
    ["search by order number", search(spot.orderNumber)],
    ["search by name", search(spot.name)],
    ["search by device key", search(spot.device_key)],
    ["search by address", search(spot.device_ip)],
    ["audit log", "/admin/audit"],
    ["audit log of a subscription", `/admin/audit?targetType=subscription&targetId=${spot.subscription_id}`],
  ];
  for (const [name, target] of pages) await timePage(shop, name, target, staff, 150);
}

async function accountFigures(shop: Shop) {
  const customer = await customerCookie(shop);
  await timePage(shop, "/account with 10 subscriptions", "/account", customer, 100);
  await timePage(shop, "/account/billing with 10 subscriptions", "/account/billing", customer, 100);
}

/** One pass of each scheduled job, in-process against the big database. */
async function jobFigures(shop: Shop) {
  const jobs: Array<[string, () => Promise<unknown>]> = [
    ["housekeeping pass", () => purgeStale(shop.services.db)],
    ["staff alerts pass", () => checkStaffAlerts(shop.services)],
    ["waiting-buyers pass", () => serveWaitingBuyers(shop.services)],
  ];
  for (const [name, run] of jobs) {
    shop.recorder.area = name;
    const started = performance.now();
    await run();
    figure({
      figure: `scale ${shop.kind}: ${name}`,
      value: performance.now() - started,
      unit: "ms",
      max: 1000,
    });
    shop.recorder.area = null;
  }
}

/** One purchase through the app, so its statements are EXPLAINed too (not timed: bench:fulfilment is). */
async function onePurchase(shop: Shop) {
  shop.recorder.area = "fulfilment";
  const created = await shop.request("/api/create-checkout", {
    json: { planId: "pro-monthly", customerEmail: "scale-buyer@example.com" },
  });
  await expectOk(created, "create-checkout");
  const sessionId = ((await created.json()) as { url: string }).url.split("/").pop()!;
  await shop.services.db
    .update(checkoutSessions)
    .set({ status: "paid", paidAt: new Date(), paymentReference: `pi_scale_${sessionId}` })
    .where(eq(checkoutSessions.id, sessionId));
  const verified = await shop.request("/api/verify-payment", { json: { sessionId } });
  const body = (await verified.json()) as { success?: boolean };
  if (!body.success) throw new Error(`verify-payment did not issue a config: ${JSON.stringify(body)}`);
  shop.recorder.area = null;
}

/** The resident set of a process, in MB. */
async function rssOf(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/** POSTs the export form to the running server; reads the whole download, sampling the server's RSS. */
function download(base: string, cookie: string, form: Record<string, string>, pid: number) {
  return new Promise<{ bytes: number; peakRss: number; ms: number }>((resolve, reject) => {
    const body = new URLSearchParams(form).toString();
    const started = performance.now();
    let bytes = 0;
    let peakRss = 0;
    const sampler = setInterval(() => {
      rssOf(pid).then((rss) => (peakRss = Math.max(peakRss, rss)), reject);
    }, 25);
    const request = http.request(
      `${base}/api/admin/export`,
      {
        method: "POST",
        headers: {
          cookie,
          origin: base,
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`the export answered ${response.statusCode}`));
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", async () => {
          clearInterval(sampler);
          peakRss = Math.max(peakRss, await rssOf(pid));
          resolve({ bytes, peakRss, ms: performance.now() - started });
        });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** Every order ever, exported from `node server.js` on the big database: its RSS growth. */
async function exportFigures(shop: Shop, staff: string) {
  const server = await startProductionServer({
    env: {
      DATABASE_URL: shop.databaseUrl!,
      CONFIG_ENCRYPTION_KEY: ENCRYPTION_KEY,
      BETTER_AUTH_SECRET: SECRET,
      STAFF_ADMINS: STAFF_EMAIL,
      STAFF_REQUIRE_TOTP: "false",
    },
  });
  try {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    // Warm: one day's orders, so the code paths are loaded before the baseline is read.
    await download(server.base, staff, { kind: "orders", from: yesterday, to: today }, server.pid!);
    const before = await rssOf(server.pid!);
    const all = await download(
      server.base,
      staff,
      { kind: "orders", from: "2020-01-01", to: today },
      server.pid!,
    );
    console.log(
      `  orders export: ${(all.bytes / 1048576).toFixed(1)} MB in ${(all.ms / 1000).toFixed(1)} s; server RSS ${before.toFixed(0)} → peak ${all.peakRss.toFixed(0)} MB`,
    );
    figure({
      figure: `scale ${shop.kind}: CSV export of every order, server RSS growth`,
      value: all.peakRss - before,
      unit: "MB",
      max: 20,
    });
    figure({
      figure: `scale ${shop.kind}: CSV export of every order, time`,
      value: all.ms / 1000,
      unit: "s",
    });
  } finally {
    await server.stop();
  }
}

/** `npm run backup`'s code path (createBackup) on the big database: time and archive size. */
async function backupFigures(shop: Shop) {
  const started = performance.now();
  const archive = await createBackup(
    {
      DATABASE_URL: shop.databaseUrl,
      DATABASE_MIGRATION_URL: undefined,
      DATA_DIR: shop.dataDir,
      CONFIG_ENCRYPTION_KEY: ENCRYPTION_KEY,
      BETTER_AUTH_SECRET: SECRET,
    },
    "scale-bench-passphrase-scale-bench",
  );
  figure({
    figure: `scale ${shop.kind}: backup time`,
    value: (performance.now() - started) / 1000,
    unit: "s",
  });
  figure({ figure: `scale ${shop.kind}: backup archive size`, value: archive.length / 1048576, unit: "MB" });
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

/** Each recorded statement's plan on PostgreSQL: the tables over SEQ_SCAN_ROWS it reads whole. */
async function explainFigures(shop: Shop) {
  const client = new pg.Client({ connectionString: shop.databaseUrl });
  await client.connect();
  try {
    const sizes = new Map(
      (
        await client.query<{ name: string; rows: number }>(
          "select relname as name, reltuples::bigint as rows from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace",
        )
      ).rows.map((row) => [row.name, Number(row.rows)]),
    );
    const offenders: string[] = [];
    let explained = 0;
    for (const [query, { area, params }] of shop.recorder.seen) {
      if (!/^\s*(select|with|update|delete|insert)/i.test(query)) continue;
      const { rows } = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        `explain (format json) ${query}`,
        params,
      );
      explained++;
      const scanned: string[] = [];
      const walk = (node: PlanNode) => {
        if (node["Node Type"] === "Seq Scan" && (sizes.get(node["Relation Name"]!) ?? 0) > SEQ_SCAN_ROWS)
          scanned.push(`${node["Relation Name"]} (${sizes.get(node["Relation Name"]!)} rows)`);
        node.Plans?.forEach(walk);
      };
      walk(rows[0]!["QUERY PLAN"][0]!.Plan);
      if (scanned.length)
        offenders.push(
          `  [${area}] seq scan of ${[...new Set(scanned)].join(", ")}: ${query.replace(/\s+/g, " ").slice(0, 160)}`,
        );
    }
    console.log(
      `  EXPLAINed ${explained} statements; ${offenders.length} read a table over ${SEQ_SCAN_ROWS} rows whole`,
    );
    for (const line of offenders) console.log(line);
    figure({
      figure: `scale ${shop.kind}: queries scanning a table over 10,000 rows`,
      value: offenders.length,
      unit: "",
      max: 0,
    });
  } finally {
    await client.end();
  }
}

async function run(bundle: ServerBundle, kind: DatabaseKind, scale: number) {
  const size = shopSize(scale);
  console.log(
    `${kind}: ${size.customers} customers, ${size.subscriptions} subscriptions, ${size.devices} devices, ${size.auditRows} audit rows, ${size.sentEmails} sent e-mails (load average ${loadAverage()})`,
  );
  const shop = await openShop(bundle, kind, scale);
  try {
    await seed(shop);
    const staff = await staffCookie(shop);
    await consoleFigures(shop, staff);
    await accountFigures(shop);
    await jobFigures(shop);
    await onePurchase(shop);
    if (kind === "postgres") {
      await exportFigures(shop, staff);
      await backupFigures(shop);
      await explainFigures(shop);
    }
  } finally {
    // BENCH_KEEP_DATABASE=1: left for a look with psql (drop it yourself afterwards).
    if (process.env.BENCH_KEEP_DATABASE === "1" && shop.databaseUrl)
      console.log(`  kept: ${shop.databaseUrl}`);
    else await shop.close();
  }
}

if (process.argv.includes("--help")) {
  console.log(`Usage: npm run bench:scale
Seeds a two-year shop on a throw-away PostgreSQL database (and a smaller one on PGlite), then times
the console, /account, the jobs, the orders export's RSS and the backup, and EXPLAINs every query.
  BENCH_SCALE=0.1           a tenth of the shop (default 1: 100,000 customers)
  BENCH_PGLITE_SCALE=0.2    the PGlite shop, as a share of BENCH_SCALE
  BENCH_DATABASES=postgres  one database only (or pglite)
  BENCH_SAMPLES=30          timed requests per page
  BENCH_KEEP_DATABASE=1     keep the PostgreSQL database for a look with psql
  BENCH_DATABASE_URL=…      the server (default TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test)`);
  process.exit(0);
}
buildIfStale();
if (!(await postgresReachable(benchPostgresUrl))) {
  console.error(
    `bench:scale needs PostgreSQL: none answers at ${benchPostgresUrl.replace(/\/\/[^@]*@/, "//")} (set BENCH_DATABASE_URL)`,
  );
  process.exit(1);
}
const bundle = await loadServerBundle();
const started = performance.now();
const only = process.env.BENCH_DATABASES as DatabaseKind | undefined;
if (only !== "pglite") await run(bundle, "postgres", SCALE);
if (only !== "postgres") await run(bundle, "pglite", PGLITE_SCALE);
notes.push(
  "not measured here: verify-payment at 50/s (npm run bench:fulfilment) and the node's cold resync.",
  "PGlite: console, account and job figures only (its export, backup and plans are PostgreSQL's here).",
);
const failed = printFigureTable(figures, notes);
console.log(
  `scale ${SCALE} (PGlite ${PGLITE_SCALE}); ${os.cpus().length} CPUs, Node ${process.version}; ${((performance.now() - started) / 60_000).toFixed(1)} min`,
);
process.exit(failed ? 1 : 0);
