// Migration 0071 (decision 120) writes into the new ledger, once, the money a store recorded
// before it: each paid checkout (a purchase or a pass's own checkout), each demo plan change's
// charge or credit, and each applied refund or dispute, with the order numbers receipts printed.
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { PGLITE_EXTENSIONS, queryRows, wrapPglite } from "#server/db/client.ts";
import { listMigrations } from "#server/db/migrate.ts";

const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
const { db } = wrapPglite(client);
afterAll(() => client.close());

const PASS = "11111111-2222-3333-4444-555555555555";
const PLAN = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

it("backfills the ledger from the checkouts, plan changes and reversals recorded before it", async () => {
  const migrations = listMigrations();
  const ledgerAt = migrations.findIndex((migration) => migration.name === "0071_ledger");
  const run = async (names: typeof migrations) => {
    for (const migration of names)
      for (const statement of migration.statements) await db.execute(sql.raw(statement));
  };
  await run(migrations.slice(0, ledgerAt));
  const before = `
    insert into checkout_sessions (id, provider, plan_id, customer_email, amount_cents, status, paid_at, payment_reference, paid_amount_cents, paid_currency) values
      ('cs_pass', 'test', 'unlock', 'a@example.com', 999, 'paid', now(), 'pi_pass', 999, 'usd'),
      ('cs_plan', 'test', 'pro-monthly', 'b@example.com', 799, 'paid', now(), 'pi_plan', 799, 'usd'),
      ('cs_open', 'test', 'unlock', 'c@example.com', 999, 'open', null, null, null, null);
    insert into subscriptions (id, plan_id, plan_type, device_limit, customer_email, expires_at, checkout_session_id) values
      ('${PASS}', 'unlock', 'unlock', 1, 'a@example.com', now() + interval '14 days', 'cs_pass'),
      ('${PLAN}', 'basic-monthly', 'basic', 1, 'b@example.com', now() + interval '30 days', 'cs_plan');
    insert into checkout_sessions (id, provider, plan_id, customer_email, amount_cents, status, paid_at, payment_reference, paid_amount_cents, paid_currency, renews_subscription_id) values
      ('cs_extend', 'test', 'unlock', 'a@example.com', 999, 'paid', now(), 'pi_extend', 999, 'usd', '${PASS}');
    insert into plan_changes (id, subscription_id, kind, from_plan_id, to_plan_id, amount_cents, status, checkout_session_id, requested_at, applied_at) values
      ('99999999-8888-7777-6666-555555555555', '${PASS}', 'pass-extend', 'unlock', 'unlock', 999, 'applied', 'cs_extend', now(), now()),
      ('55555555-8888-7777-6666-555555555555', '${PLAN}', 'downgrade', 'pro-monthly', 'basic-monthly', -300, 'applied', null, now(), now());
    insert into charge_reversals (id, kind, payment_intent_id, amount_cents, currency, applied_at, subscription_id) values
      ('test-refund:${PASS}', 'refund', 'pi_pass', 999, 'usd', now(), '${PASS}');
  `;
  // One statement per query: the extended protocol takes no more.
  for (const statement of before.split(";").filter((text) => text.trim()))
    await db.execute(sql.raw(statement));
  await run(migrations.slice(ledgerAt, ledgerAt + 1));

  const rows = await queryRows<{
    key: string;
    kind: string;
    purpose: string | null;
    order_number: string;
    amount_cents: number;
  }>(db, sql`select key, kind, purpose, order_number, amount_cents from ledger_entries order by key`);
  expect(
    rows.map((row) => [row.key, row.kind, row.purpose, row.order_number, Number(row.amount_cents)]),
  ).toEqual([
    ["charge:checkout:cs_extend", "charge", "pass_extension", "9999-9999-8888", 999],
    ["charge:checkout:cs_pass", "charge", "purchase", "1111-1111-2222", 999],
    ["charge:checkout:cs_plan", "charge", "purchase", "AAAA-AAAA-BBBB", 799],
    ["plan-change:55555555-8888-7777-6666-555555555555", "credit", "plan_change", "5555-5555-8888", 300],
    [`refund:test-refund:${PASS}:999`, "refund", null, "1111-1111-2222", 999],
  ]);
});
