import { and, eq, gte, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { ledgerEntries, subscriptionEvents, type LedgerKind } from "#server/db/schema/index.ts";

// The dashboard's aggregate queries (dashboard.ts puts their rows together), each counted for
// today, the last 7 days and the last 30 days as of `now`.

export const DASHBOARD_WINDOWS = ["today", "last7Days", "last30Days"] as const;
export type DashboardWindow = (typeof DASHBOARD_WINDOWS)[number];

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** `count(*) filter (where column in [start, now] and extra)` for each window. */
export function countsByWindow(
  column: AnyColumn,
  starts: Record<DashboardWindow, Date>,
  now: Date,
  extra: SQL = sql`true`,
): Record<DashboardWindow, SQL<number>> {
  const counts = DASHBOARD_WINDOWS.map((window) => [
    window,
    sql<number>`count(*) filter (where ${column} >= ${at(starts[window])} and ${column} <= ${at(now)} and ${extra})`.mapWith(
      Number,
    ),
  ]);
  return Object.fromEntries(counts) as Record<DashboardWindow, SQL<number>>;
}

export interface PaidOrderGroup {
  planId: string;
  day: string;
  orders: number;
  revenueCents: number;
}

/** The ledger's charges since `since`, counted and summed per plan and UTC day. */
export function paidOrdersByPlanAndDay(
  executor: Executor,
  since: Date,
  now: Date,
): Promise<PaidOrderGroup[]> {
  const day = sql<string>`to_char(${ledgerEntries.occurredAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  return executor
    .select({
      planId: sql<string>`coalesce(${ledgerEntries.planId}, '')`,
      day,
      orders: sql<number>`count(*)`.mapWith(Number),
      revenueCents: sql<number>`coalesce(sum(${ledgerEntries.amountCents}), 0)`.mapWith(Number),
    })
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.kind, "charge"),
        gte(ledgerEntries.occurredAt, since),
        lte(ledgerEntries.occurredAt, now),
      ),
    )
    .groupBy(ledgerEntries.planId, day);
}

/** What credits, refunds and disputes (less those won back) took off revenue in each window. */
export async function reversedAmounts(executor: Executor, starts: Record<DashboardWindow, Date>, now: Date) {
  const sums = (kind: LedgerKind) =>
    Object.fromEntries(
      DASHBOARD_WINDOWS.map((window) => [
        window,
        sql<number>`coalesce(sum(${ledgerEntries.amountCents}) filter (where ${ledgerEntries.kind} = ${kind} and ${ledgerEntries.occurredAt} >= ${at(starts[window])} and ${ledgerEntries.occurredAt} <= ${at(now)}), 0)`.mapWith(
          Number,
        ),
      ]),
    ) as Record<DashboardWindow, SQL<number>>;
  const [row] = await executor
    .select({
      credit: sums("credit"),
      refund: sums("refund"),
      dispute: sums("dispute"),
      won: sums("dispute_won"),
    })
    .from(ledgerEntries)
    .where(gte(ledgerEntries.occurredAt, starts.last30Days));
  const totals = row!;
  const dispute = Object.fromEntries(
    DASHBOARD_WINDOWS.map((window) => [window, totals.dispute[window] - totals.won[window]]),
  ) as Record<DashboardWindow, number>;
  return { credit: totals.credit, refund: totals.refund, dispute };
}

/**
 * Cancellations and refunds by the moment they happened, from the status history (decision 077):
 * an event that made a subscription cancelled, set it to end at its period's end, or refunded it.
 * A cancellation counts only while it stands (decision 103): one undone later (resumed, or
 * reactivated into a plan that renews again) is not counted, and cancelling at once a plan
 * already set to end is the same cancellation, not a second.
 */
export async function statusTransitions(
  executor: Executor,
  starts: Record<DashboardWindow, Date>,
  now: Date,
) {
  const history = sql`over (partition by ${subscriptionEvents.subscriptionId} order by ${subscriptionEvents.id})`;
  // Every event after this one: a renewing state among them undid the cancellation.
  const later = sql`over (partition by ${subscriptionEvents.subscriptionId} order by ${subscriptionEvents.id} rows between 1 following and unbounded following)`;
  const changes = executor.$with("changes").as(
    executor
      .select({
        at: subscriptionEvents.at,
        cancelled: sql<boolean>`((${subscriptionEvents.status} = 'canceled'
            and lag(${subscriptionEvents.status}) ${history} is distinct from 'canceled'
            and not coalesce(lag(${subscriptionEvents.cancelAtPeriodEnd}) ${history}, false))
          or (${subscriptionEvents.cancelAtPeriodEnd} and not coalesce(lag(${subscriptionEvents.cancelAtPeriodEnd}) ${history}, false)))
          and not coalesce(bool_or(${subscriptionEvents.status} in ('active', 'past_due') and not ${subscriptionEvents.cancelAtPeriodEnd}) ${later}, false)`.as(
          "cancelled",
        ),
        refunded:
          sql<boolean>`${subscriptionEvents.status} = 'refunded' and lag(${subscriptionEvents.status}) ${history} is distinct from 'refunded'`.as(
            "refunded",
          ),
      })
      .from(subscriptionEvents)
      // Only subscriptions that changed in the window, each with its whole history (the window
      // functions look back and ahead), not every event ever recorded (decision 131): the few
      // found by `at`, then their histories by subscription.
      .where(
        sql`${subscriptionEvents.subscriptionId} = any (array(select distinct ${sql.identifier("recent")}.subscription_id from ${subscriptionEvents} as ${sql.identifier("recent")} where ${sql.identifier("recent")}.at >= ${starts.last30Days.toISOString()}::timestamptz))`,
      ),
  );
  const [row] = await executor
    .with(changes)
    .select({
      cancelled: countsByWindow(changes.at, starts, now, sql`${changes.cancelled}`),
      refunded: countsByWindow(changes.at, starts, now, sql`${changes.refunded}`),
    })
    .from(changes)
    .where(gte(changes.at, starts.last30Days));
  return row!;
}
