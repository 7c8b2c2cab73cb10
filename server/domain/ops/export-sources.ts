import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgSelect } from "drizzle-orm/pg-core";
import { findPlan } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, ledgerEntries, subscriptions } from "#server/db/schema/index.ts";
import { LEDGER_SIGN, orderNumberOf } from "#server/domain/billing/ledger.ts";

// What each CSV export (exports.ts) reads: its columns, and one page of its rows as cells.

export const EXPORT_KINDS = ["orders", "subscriptions", "ledger"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

type Cell = string | number | boolean | null;

interface ExportSource {
  /** The CSV header, in column order. */
  columns: string[];
  createdAt: PgColumn;
  id: PgColumn;
  /** One page of rows created in [start, end) after the cursor, oldest first. */
  page(
    executor: Executor,
    where: SQL | undefined,
    limit: number,
  ): Promise<Array<{ cursor: Cursor; cells: Cell[] }>>;
}

/** The last row written: its creation time as PostgreSQL's exact text (microseconds) and its id. */
export interface Cursor {
  at: string;
  id: string;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const amount = (cents: number) => (cents / 100).toFixed(2);
const planName = (planId: string) => findPlan(planId)?.name ?? planId;

type RowOf<Query extends PgSelect> = Awaited<Query>[number];

/**
 * A source from the query that joins its rows (they carry `at`, the creation time as text) and its
 * columns, each a header with how a row fills it: the pages are taken in (createdAt, id) order.
 */
function exportSource<Query extends PgSelect>(source: {
  createdAt: PgColumn;
  id: PgColumn;
  rows: (executor: Executor) => Query;
  cursorOf: (row: RowOf<Query>) => Cursor;
  columns: Array<[header: string, cell: (row: RowOf<Query>) => Cell]>;
}): ExportSource {
  return {
    columns: source.columns.map(([header]) => header),
    createdAt: source.createdAt,
    id: source.id,
    async page(executor, where, limit) {
      const rows: Array<RowOf<Query>> = await source
        .rows(executor)
        .where(where)
        .orderBy(asc(source.createdAt), asc(source.id))
        .limit(limit);
      return rows.map((row) => ({
        cursor: source.cursorOf(row),
        cells: source.columns.map(([, cell]) => cell(row)),
      }));
    },
  };
}

const ORDERS = exportSource({
  createdAt: checkoutSessions.createdAt,
  id: checkoutSessions.id,
  rows: (executor) =>
    executor
      .select({
        at: sql<string>`${checkoutSessions.createdAt}::text`,
        session: checkoutSessions,
        subscriptionId: subscriptions.id,
        subscriptionStatus: subscriptions.status,
        subscriptionEmail: subscriptions.customerEmail,
        // The ledger's charge of a paid session: its order number, and the pass it extended.
        chargeOrderNumber: ledgerEntries.orderNumber,
        chargeSubscriptionId: ledgerEntries.subscriptionId,
      })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .leftJoin(ledgerEntries, eq(ledgerEntries.key, sql`'charge:checkout:' || ${checkoutSessions.id}`))
      .$dynamic(),
  cursorOf: ({ at, session }) => ({ at, id: session.id }),
  columns: [
    ["ordered_at", ({ session }) => iso(session.createdAt)],
    ["order_status", ({ session }) => session.status],
    ["paid_at", ({ session }) => iso(session.paidAt)],
    ["checkout_session_id", ({ session }) => session.id],
    [
      "order_number",
      ({ chargeOrderNumber, subscriptionId }) =>
        chargeOrderNumber ?? (subscriptionId ? orderNumberOf(subscriptionId) : null),
    ],
    ["plan", ({ session }) => planName(session.planId)],
    ["amount", ({ session }) => amount(session.paidAmountCents ?? session.amountCents)],
    ["currency", ({ session }) => (session.paidCurrency ?? session.currency).toUpperCase()],
    ["customer_name", ({ session }) => session.customerName],
    ["customer_email", ({ session, subscriptionEmail }) => subscriptionEmail ?? session.customerEmail],
    ["payment_reference", ({ session }) => session.paymentReference],
    ["subscription_id", ({ subscriptionId, chargeSubscriptionId }) => subscriptionId ?? chargeSubscriptionId],
    ["subscription_status", ({ subscriptionStatus }) => subscriptionStatus],
  ],
});

const SUBSCRIPTIONS = exportSource({
  createdAt: subscriptions.createdAt,
  id: subscriptions.id,
  rows: (executor) =>
    executor
      .select({
        at: sql<string>`${subscriptions.createdAt}::text`,
        subscription: subscriptions,
        customerName: checkoutSessions.customerName,
      })
      .from(subscriptions)
      .leftJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .$dynamic(),
  cursorOf: ({ at, subscription }) => ({ at, id: subscription.id }),
  columns: [
    ["created_at", ({ subscription }) => iso(subscription.createdAt)],
    ["order_number", ({ subscription }) => orderNumberOf(subscription.id)],
    ["subscription_id", ({ subscription }) => subscription.id],
    ["plan", ({ subscription }) => planName(subscription.planId)],
    ["status", ({ subscription }) => subscription.status],
    ["expires_at", ({ subscription }) => iso(subscription.expiresAt)],
    ["cancel_at_period_end", ({ subscription }) => subscription.cancelAtPeriodEnd],
    ["device_limit", ({ subscription }) => subscription.deviceLimit],
    ["customer_name", ({ customerName }) => customerName],
    ["customer_email", ({ subscription }) => subscription.customerEmail],
    ["stripe_subscription_id", ({ subscription }) => subscription.stripeSubscriptionId],
    ["checkout_session_id", ({ subscription }) => subscription.checkoutSessionId],
  ],
});

const REVENUE_EFFECT = { 1: "in", 0: "none", [-1]: "out" } as const;

/** Every row of the ledger: the money itself, each movement once, with the way it moved revenue. */
const LEDGER = exportSource({
  createdAt: ledgerEntries.occurredAt,
  id: ledgerEntries.id,
  rows: (executor) =>
    executor
      .select({ at: sql<string>`${ledgerEntries.occurredAt}::text`, entry: ledgerEntries })
      .from(ledgerEntries)
      .$dynamic(),
  cursorOf: ({ at, entry }) => ({ at, id: entry.id }),
  columns: [
    ["occurred_at", ({ entry }) => iso(entry.occurredAt)],
    ["order_number", ({ entry }) => entry.orderNumber],
    ["kind", ({ entry }) => entry.kind],
    ["purpose", ({ entry }) => entry.purpose],
    ["plan", ({ entry }) => (entry.planId ? planName(entry.planId) : null)],
    ["amount", ({ entry }) => amount(entry.amountCents)],
    // Not a signed amount: a spreadsheet-safe export escapes a cell that starts with "-".
    ["revenue_effect", ({ entry }) => REVENUE_EFFECT[LEDGER_SIGN[entry.kind]]],
    ["currency", ({ entry }) => entry.currency.toUpperCase()],
    ["customer_email", ({ entry }) => entry.customerEmail],
    ["subscription_id", ({ entry }) => entry.subscriptionId],
    ["checkout_session_id", ({ entry }) => entry.checkoutSessionId],
    ["provider", ({ entry }) => entry.provider],
    ["provider_reference", ({ entry }) => entry.providerReference],
  ],
});

export const SOURCES: Record<ExportKind, ExportSource> = {
  orders: ORDERS,
  subscriptions: SUBSCRIPTIONS,
  ledger: LEDGER,
};
