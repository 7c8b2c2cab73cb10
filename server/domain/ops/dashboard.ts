import { and, eq, gte, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";
import { findPlan } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import {
  chargeReversals,
  checkoutSessions,
  devices,
  subscriptionEvents,
  subscriptions,
} from "#server/db/schema/index.ts";
import { outboxBacklog } from "#server/domain/mail/backlog.ts";
import { awaitingConfiguration } from "#server/domain/vpn/configuration-pending.ts";
import { countServersUp } from "#server/domain/vpn/nodes.ts";
import { usableSubscription } from "#server/domain/vpn/usable.ts";
import { DAY_MS } from "#server/domain/time.ts";

// The staff dashboard's figures (decision 076): a handful of aggregate queries over the last 30
// UTC days, each counted for today, the last 7 days and the last 30 days as of `now`.

/** POST /api/admin/dashboard takes no input: the figures are as of the server's clock. */
export const dashboardQuerySchema = z.object({}).strict();

export const DASHBOARD_WINDOWS = ["today", "last7Days", "last30Days"] as const;
export type DashboardWindow = (typeof DASHBOARD_WINDOWS)[number];

const WINDOW_DAYS: Record<DashboardWindow, number> = { today: 1, last7Days: 7, last30Days: 30 };

export interface PlanRevenue {
  planId: string;
  planName: string;
  orders: number;
  revenueCents: number;
}

export interface WindowFigures {
  paidOrders: number;
  /** What the paid orders in the window brought in. */
  grossRevenueCents: number;
  /** What went back in the window: refunds, and disputes the banks opened (decision 103). */
  refundedCents: number;
  disputedCents: number;
  /** Net: gross less refunds and disputes. */
  revenueCents: number;
  /** Gross, per plan. */
  revenueByPlan: PlanRevenue[];
  newSubscriptions: number;
  cancellations: number;
  refunds: number;
  devicesIssued: number;
}

export interface DashboardFigures {
  /** The `now` the figures are as of, and where each window starts (UTC midnights). */
  asOf: string;
  windowStarts: Record<DashboardWindow, string>;
  windows: Record<DashboardWindow, WindowFigures>;
  /** Usable right now (the VPN area's rule). */
  activeSubscriptions: number;
  /** Paid, still usable, and no config issued yet: the success page shows them Configuration Pending. */
  configurationPending: number;
  servers: { up: number; down: number };
  outbox: { pending: number; failed: number };
  /** Paid orders per UTC day, oldest first, the last 30 days (today included). */
  paidOrdersByDay: { day: string; orders: number; revenueCents: number }[];
}

/** UTC midnight `days - 1` days before `now`'s day: the start of a window of `days` calendar days. */
function windowStart(now: Date, days: number): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(midnight - (days - 1) * DAY_MS);
}

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** `count(*) filter (where column in [start, now] and extra)` for each window. */
function countsByWindow(
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

export async function dashboardFigures(executor: Executor, now = new Date()): Promise<DashboardFigures> {
  const starts = Object.fromEntries(
    DASHBOARD_WINDOWS.map((window) => [window, windowStart(now, WINDOW_DAYS[window])]),
  ) as Record<DashboardWindow, Date>;
  const oldest = starts.last30Days;

  const [paidOrders, subscriptionCounts, transitions, deviceCounts, pending, servers, outbox, reversed] =
    await Promise.all([
      paidOrdersByPlanAndDay(executor, oldest, now),
      executor
        .select({
          created: countsByWindow(subscriptions.createdAt, starts, now),
          active: sql<number>`count(*) filter (where ${usableSubscription(now)})`.mapWith(Number),
        })
        .from(subscriptions),
      statusTransitions(executor, starts, now),
      executor
        .select(countsByWindow(devices.createdAt, starts, now))
        .from(devices)
        .where(gte(devices.createdAt, oldest)),
      awaitingConfiguration(executor, now),
      countServersUp(executor, now),
      outboxBacklog(executor),
      reversedAmounts(executor, starts, now),
    ]);

  const counts = subscriptionCounts[0]!;
  const devicesByWindow = deviceCounts[0]!;
  const windows = Object.fromEntries(
    DASHBOARD_WINDOWS.map((window) => {
      const rows = paidOrders.filter((row) => row.day >= isoDay(starts[window]));
      const { paidOrders: orders, revenueCents: gross } = orderTotals(rows);
      const refundedCents = reversed.refund[window];
      const disputedCents = reversed.dispute[window];
      return [
        window,
        {
          paidOrders: orders,
          grossRevenueCents: gross,
          refundedCents,
          disputedCents,
          revenueCents: gross - refundedCents - disputedCents,
          revenueByPlan: revenueByPlan(rows),
          newSubscriptions: counts.created[window],
          cancellations: transitions.cancelled[window],
          refunds: transitions.refunded[window],
          devicesIssued: devicesByWindow[window],
        },
      ];
    }),
  ) as Record<DashboardWindow, WindowFigures>;

  return {
    asOf: now.toISOString(),
    windowStarts: Object.fromEntries(
      DASHBOARD_WINDOWS.map((window) => [window, starts[window].toISOString()]),
    ) as Record<DashboardWindow, string>,
    windows,
    activeSubscriptions: counts.active,
    configurationPending: pending.length,
    servers,
    outbox: { pending: outbox.pending, failed: outbox.failed },
    paidOrdersByDay: Array.from({ length: WINDOW_DAYS.last30Days }, (_, index) => {
      const day = isoDay(new Date(oldest.getTime() + index * DAY_MS));
      const totals = orderTotals(paidOrders.filter((row) => row.day === day));
      return { day, orders: totals.paidOrders, revenueCents: totals.revenueCents };
    }),
  };
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

interface PaidOrderGroup {
  planId: string;
  day: string;
  orders: number;
  revenueCents: number;
}

/** Paid checkout sessions since `since`, counted and summed per plan and UTC day. */
function paidOrdersByPlanAndDay(executor: Executor, since: Date, now: Date): Promise<PaidOrderGroup[]> {
  const day = sql<string>`to_char(${checkoutSessions.paidAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  return executor
    .select({
      planId: checkoutSessions.planId,
      day,
      orders: sql<number>`count(*)`.mapWith(Number),
      // Prices are in USD; what the provider reported is what was paid.
      revenueCents:
        sql<number>`coalesce(sum(coalesce(${checkoutSessions.paidAmountCents}, ${checkoutSessions.amountCents})), 0)`.mapWith(
          Number,
        ),
    })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.status, "paid"),
        gte(checkoutSessions.paidAt, since),
        lte(checkoutSessions.paidAt, now),
      ),
    )
    .groupBy(checkoutSessions.planId, day);
}

function orderTotals(rows: PaidOrderGroup[]): { paidOrders: number; revenueCents: number } {
  return {
    paidOrders: rows.reduce((sum, row) => sum + row.orders, 0),
    revenueCents: rows.reduce((sum, row) => sum + row.revenueCents, 0),
  };
}

function revenueByPlan(rows: PaidOrderGroup[]): PlanRevenue[] {
  const byPlan = new Map<string, PlanRevenue>();
  for (const row of rows) {
    const plan = byPlan.get(row.planId) ?? {
      planId: row.planId,
      planName: findPlan(row.planId)?.name ?? row.planId,
      orders: 0,
      revenueCents: 0,
    };
    plan.orders += row.orders;
    plan.revenueCents += row.revenueCents;
    byPlan.set(row.planId, plan);
  }
  return [...byPlan.values()].sort((a, b) => b.revenueCents - a.revenueCents);
}

/** The money refunds and disputes took back in each window, by when they were applied. */
async function reversedAmounts(executor: Executor, starts: Record<DashboardWindow, Date>, now: Date) {
  const sums = (kind: "refund" | "dispute") =>
    Object.fromEntries(
      DASHBOARD_WINDOWS.map((window) => [
        window,
        sql<number>`coalesce(sum(${chargeReversals.amountCents}) filter (where ${chargeReversals.kind} = ${kind} and ${chargeReversals.appliedAt} >= ${at(starts[window])} and ${chargeReversals.appliedAt} <= ${at(now)}), 0)`.mapWith(
          Number,
        ),
      ]),
    ) as Record<DashboardWindow, SQL<number>>;
  const [row] = await executor
    .select({ refund: sums("refund"), dispute: sums("dispute") })
    .from(chargeReversals)
    .where(gte(chargeReversals.appliedAt, starts.last30Days));
  return row!;
}

/**
 * Cancellations and refunds by the moment they happened, from the status history (decision 077):
 * an event that made a subscription cancelled, set it to end at its period's end, or refunded it.
 * A cancellation counts only while it stands (decision 103): one undone later (resumed, or
 * reactivated into a plan that renews again) is not counted, and cancelling at once a plan
 * already set to end is the same cancellation, not a second.
 */
async function statusTransitions(executor: Executor, starts: Record<DashboardWindow, Date>, now: Date) {
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
      .from(subscriptionEvents),
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
