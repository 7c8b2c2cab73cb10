import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { findPlan } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, subscriptions } from "#server/db/schema/index.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";

// What each CSV export (exports.ts) reads: its columns, and one page of its rows as cells.

export const EXPORT_KINDS = ["orders", "subscriptions"] as const;
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

const ORDERS: ExportSource = {
  columns: [
    "ordered_at",
    "order_status",
    "paid_at",
    "checkout_session_id",
    "order_number",
    "plan",
    "amount",
    "currency",
    "customer_name",
    "customer_email",
    "payment_reference",
    "subscription_id",
    "subscription_status",
  ],
  createdAt: checkoutSessions.createdAt,
  id: checkoutSessions.id,
  async page(executor, where, limit) {
    const rows = await executor
      .select({
        at: sql<string>`${checkoutSessions.createdAt}::text`,
        session: checkoutSessions,
        subscriptionId: subscriptions.id,
        subscriptionStatus: subscriptions.status,
        subscriptionEmail: subscriptions.customerEmail,
      })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(where)
      .orderBy(asc(checkoutSessions.createdAt), asc(checkoutSessions.id))
      .limit(limit);
    return rows.map(({ at, session, subscriptionId, subscriptionStatus, subscriptionEmail }) => ({
      cursor: { at, id: session.id },
      cells: [
        iso(session.createdAt),
        session.status,
        iso(session.paidAt),
        session.id,
        subscriptionId ? orderNumberOf(subscriptionId) : null,
        planName(session.planId),
        amount(session.paidAmountCents ?? session.amountCents),
        (session.paidCurrency ?? session.currency).toUpperCase(),
        session.customerName,
        subscriptionEmail ?? session.customerEmail,
        session.paymentReference,
        subscriptionId,
        subscriptionStatus,
      ],
    }));
  },
};

const SUBSCRIPTIONS: ExportSource = {
  columns: [
    "created_at",
    "order_number",
    "subscription_id",
    "plan",
    "status",
    "expires_at",
    "cancel_at_period_end",
    "device_limit",
    "customer_name",
    "customer_email",
    "stripe_subscription_id",
    "checkout_session_id",
  ],
  createdAt: subscriptions.createdAt,
  id: subscriptions.id,
  async page(executor, where, limit) {
    const rows = await executor
      .select({
        at: sql<string>`${subscriptions.createdAt}::text`,
        subscription: subscriptions,
        customerName: checkoutSessions.customerName,
      })
      .from(subscriptions)
      .leftJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .where(where)
      .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
      .limit(limit);
    return rows.map(({ at, subscription, customerName }) => ({
      cursor: { at, id: subscription.id },
      cells: [
        iso(subscription.createdAt),
        orderNumberOf(subscription.id),
        subscription.id,
        planName(subscription.planId),
        subscription.status,
        iso(subscription.expiresAt),
        subscription.cancelAtPeriodEnd,
        subscription.deviceLimit,
        customerName,
        subscription.customerEmail,
        subscription.stripeSubscriptionId,
        subscription.checkoutSessionId,
      ],
    }));
  },
};

export const SOURCES: Record<ExportKind, ExportSource> = { orders: ORDERS, subscriptions: SUBSCRIPTIONS };
