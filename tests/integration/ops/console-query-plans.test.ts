// Decision 131: on a store of a few tens of thousands of rows (bench:scale's shop at a fifth, with
// fewer audit rows and e-mails), ANALYZEd, the staff console's queries, the dashboard's and the
// jobs' read no big table whole: PostgreSQL's own plans (EXPLAIN) name no Seq Scan of a table
// over 10,000 rows. The contains-search of names and partial addresses reads pg_trgm's indexes
// (decision 138). The exceptions the decisions record are checked to be the only ones: the
// per-server aggregates of live devices (server health; the staff alerts' desired peers).
// The waiting-buyers rule reads its flagged candidates (decision 138), no longer every paid order.
// And one the planner chooses on a store this small: the subscriptions list's count (at most
// 10,001 rows) hashes the two tables, where a shop of bench:scale's size walks the index of
// orders with a subscription (bench:scale's EXPLAIN lists it if not).
import { sql, type Logger } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "#server/config.ts";
import { queryRows, type DatabaseHandle } from "#server/db/client.ts";
import { migrate } from "#server/db/migrate.ts";
import { awaitingConfiguration } from "#server/domain/billing/waiting-buyers.ts";
import { checkStaffAlerts, type AlertServices } from "#server/domain/ops/alerts.ts";
import { auditLogQuerySchema, listAuditLog } from "#server/domain/ops/audit.ts";
import { dashboardFigures } from "#server/domain/ops/dashboard.ts";
import { purgeStale } from "#server/domain/ops/housekeeping.ts";
import { findOrders, type OrderListQuery } from "#server/domain/ops/order-search.ts";
import { listServerHealth } from "#server/domain/ops/server-health.ts";
import { subscriptionPage } from "#server/domain/ops/subscription-page.ts";
import { seedStatements, shopSize } from "../../../bench/support/scale-seed.ts";
import { makeDataDir, testEnv } from "../../support/app.ts";
import { describeOnPostgres, ignoreTerminatedConnections } from "../../support/database.ts";
import { createScratchPostgres } from "../../support/scratch-postgres.ts";

const BIG_TABLE_ROWS = 10_000;
const SUBSCRIPTIONS_COUNT =
  /^select count\(\*\) from \(select 1 as "one" .* where \(.*"subscriptions"\."id" is not null and "checkout_sessions"\."has_subscription"\) order by/s;
/** The peers each server's node must carry (the staff alerts' desired peers): every live device. */
const DESIRED_PEERS =
  /^select "devices"\."vpn_server_id", count\(\*\) from "devices" inner join "subscriptions" on "subscriptions"\."id" = "devices"\."subscription_id"/;

/** The staff alerts' pass needs a logger and an outbox; neither is looked at here. */
const silent = { info() {}, error() {} } as unknown as AlertServices["logger"];
const noMail = { enqueue: async () => {}, wake() {} } as unknown as AlertServices["mail"];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

describeOnPostgres("console queries on a large store", () => {
  let handle: (DatabaseHandle & { url: string }) | undefined;
  let recording = false;
  const recorded = new Map<string, unknown[]>();
  const logger: Logger = {
    logQuery(query, params) {
      if (recording && !recorded.has(query)) recorded.set(query, params);
    },
  };

  beforeAll(async () => {
    handle = await createScratchPostgres({
      serverUrl: process.env.TEST_DATABASE_URL!,
      prefix: "naijalink_test_plans",
      poolMax: 4,
      logger,
    });
    ignoreTerminatedConnections(handle);
    await migrate(handle.db);
    const size = { ...shopSize(0.2), auditRows: 30_000, sentEmails: 30_000, contactMessages: 2_000 };
    for (const statement of seedStatements(size, { device: "sealed", email: "sealed" }))
      await handle.db.execute(sql.raw(statement));
  }, 600_000);
  afterAll(async () => {
    await handle?.close();
  });

  /** Each recorded statement's plan: the big tables it reads whole, and the indexes it uses. */
  async function plans() {
    const client = new pg.Client({ connectionString: handle!.url });
    await client.connect();
    try {
      const sizes = new Map(
        (
          await client.query<{ name: string; rows: string }>(
            "select relname as name, reltuples::bigint::text as rows from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace",
          )
        ).rows.map((row) => [row.name, Number(row.rows)]),
      );
      const result: Array<{ query: string; seqScans: string[]; indexes: string[] }> = [];
      for (const [query, params] of recorded) {
        if (!/^\s*(select|with|update|delete)/i.test(query)) continue;
        const { rows } = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
          `explain (format json) ${query}`,
          params,
        );
        const seqScans: string[] = [];
        const indexes: string[] = [];
        const walk = (node: PlanNode) => {
          const table = node["Relation Name"];
          if (node["Node Type"] === "Seq Scan" && table && (sizes.get(table) ?? 0) > BIG_TABLE_ROWS)
            seqScans.push(table);
          if (node["Index Name"]) indexes.push(node["Index Name"]);
          node.Plans?.forEach(walk);
        };
        walk(rows[0]!["QUERY PLAN"][0]!.Plan);
        result.push({ query, seqScans, indexes });
      }
      return result;
    } finally {
      await client.end();
    }
  }

  async function whileRecording(work: () => Promise<unknown>) {
    recorded.clear();
    recording = true;
    try {
      await work();
    } finally {
      recording = false;
    }
    return plans();
  }

  async function landmarks() {
    const [row] = await queryRows<{ id: string; email: string; key: string; ip: string }>(
      handle!.db,
      sql`select s.id, s.customer_email as email, d.public_key as key, d.ipv4 as ip
          from subscriptions s join devices d on d.subscription_id = s.id
          where s.checkout_session_id = 'cs_bench_4321' limit 1`,
    );
    return row!;
  }

  it("the tables are big enough that reading one whole would show", async () => {
    const [counts] = await queryRows<{ sessions: number; devices: number; audit: number }>(
      handle!.db,
      sql`select (select count(*) from checkout_sessions)::int as sessions, (select count(*) from devices)::int as devices,
                 (select count(*) from staff_audit_log)::int as audit`,
    );
    expect(counts!.sessions).toBeGreaterThan(20_000);
    expect(counts!.devices).toBeGreaterThan(20_000);
    expect(counts!.audit).toBeGreaterThan(20_000);
  });

  it("the lists, their deep pages, the subscription page, the audit log, the dashboard and the jobs read no big table whole", async () => {
    const spot = await landmarks();
    const orderNumber = spot.id.replace(/-/g, "").slice(0, 12).toUpperCase().match(/.{4}/g)!.join("-");
    const dataDir = await makeDataDir();
    const config = loadConfig(testEnv(dataDir));
    const found = await whileRecording(async () => {
      const lists: OrderListQuery[] = [{ orderStatus: "paid" }, { withSubscription: true }];
      for (const list of lists) {
        const first = await findOrders(handle!.db, list);
        const second = await findOrders(handle!.db, { ...list, page: 2, after: first.next! });
        await findOrders(handle!.db, { ...list, page: 1, before: second.previous! });
        await findOrders(handle!.db, { ...list, page: 40 });
      }
      await findOrders(handle!.db, { subscriptionStatus: "active", withSubscription: true });
      for (const q of [spot.email, orderNumber, spot.key, spot.ip, spot.id, "cs_bench_4321", "pi_bench_4321"])
        await findOrders(handle!.db, { q });
      await subscriptionPage({ db: handle!.db, config }, spot.id);
      await listAuditLog(handle!.db, auditLogQuerySchema.parse({}));
      await listAuditLog(
        handle!.db,
        auditLogQuerySchema.parse({ targetType: "subscription", targetId: spot.id }),
      );
      await dashboardFigures(handle!.db);
      await purgeStale(handle!.db);
      await awaitingConfiguration(handle!.db, new Date());
      await checkStaffAlerts({ db: handle!.db, config, logger: silent, mail: noMail });
    });
    expect(found.length).toBeGreaterThan(20);
    const offenders = found.filter(
      (plan) =>
        plan.seqScans.length > 0 && !SUBSCRIPTIONS_COUNT.test(plan.query) && !DESIRED_PEERS.test(plan.query),
    );
    expect(offenders.map((plan) => `${plan.seqScans.join(", ")}: ${plan.query.slice(0, 200)}`)).toEqual([]);
    const used = new Set(found.flatMap((plan) => plan.indexes));
    for (const index of [
      "checkout_sessions_status_created_at_id_idx",
      "checkout_sessions_customer_email_idx",
      "devices_subscription_idx",
      "devices_ipv4_idx",
      "outbox_messages_to_address_idx",
      "outbox_messages_status_sent_at_idx",
      "subscription_events_at_idx",
      "devices_created_at_idx",
      "checkout_sessions_with_subscription_created_at_id_idx",
      "checkout_sessions_without_subscription_idx",
      "subscriptions_without_slot_one_idx",
    ])
      expect(used, index).toContain(index);
  }, 120_000);

  it("server health reads only the devices (and their subscriptions) whole, per server", async () => {
    const found = await whileRecording(() => listServerHealth(handle!.db));
    const scanned = new Set(found.flatMap((plan) => plan.seqScans));
    for (const table of scanned) expect(["devices", "subscriptions"]).toContain(table);
    expect(new Set(found.flatMap((plan) => plan.indexes))).toContain("devices_server_handshake_idx");
  }, 60_000);

  it("the contains-search of a name or part of an address reads the trigram indexes, no table whole", async () => {
    const found = await whileRecording(async () => {
      await findOrders(handle!.db, { q: "Balogun 4321" });
      await findOrders(handle!.db, { q: "customer4321@exa" });
    });
    expect(found.flatMap((plan) => plan.seqScans)).toEqual([]);
    const used = new Set(found.flatMap((plan) => plan.indexes));
    for (const index of [
      "checkout_sessions_customer_name_trgm_idx",
      "checkout_sessions_customer_email_trgm_idx",
      "subscriptions_customer_email_trgm_idx",
    ])
      expect(used, index).toContain(index);
  }, 60_000);
});
