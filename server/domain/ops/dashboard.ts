import { gte, sql } from "drizzle-orm";
import { z } from "zod";
import { findPlan } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { outboxBacklog } from "#server/domain/mail/backlog.ts";
import { awaitingConfiguration } from "#server/domain/billing/waiting-buyers.ts";
import { countServersUp } from "#server/domain/vpn/nodes.ts";
import { usableSubscription } from "#server/domain/vpn/usable.ts";
import { DAY_MS } from "#server/domain/time.ts";
import {
  countsByWindow,
  DASHBOARD_WINDOWS,
  paidOrdersByPlanAndDay,
  reversedAmounts,
  statusTransitions,
  type DashboardWindow,
  type PaidOrderGroup,
} from "./dashboard-counts.ts";

export type { DashboardWindow } from "./dashboard-counts.ts";

// The staff dashboard's figures (decision 076): a handful of aggregate queries over the last 30
// UTC days, each counted for today, the last 7 days and the last 30 days as of `now`.

/** POST /api/admin/dashboard takes no input: the figures are as of the server's clock. */
export const dashboardQuerySchema = z.object({}).strict();

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
  /** Proration credits owed back to customers in the window (the ledger, decision 120). */
  creditedCents: number;
  /** What went back in the window: refunds, and disputes the banks opened less those won (decision 103). */
  refundedCents: number;
  disputedCents: number;
  /** Net: gross less credits, refunds and disputes; the sum of the ledger's rows in the window. */
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
  /** Paid over a minute ago, still usable, and no config issued yet (`awaitingConfiguration`). */
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

export async function dashboardFigures(executor: Executor, now = new Date()): Promise<DashboardFigures> {
  const starts = Object.fromEntries(
    DASHBOARD_WINDOWS.map((window) => [window, windowStart(now, WINDOW_DAYS[window])]),
  ) as Record<DashboardWindow, Date>;
  const oldest = starts.last30Days;

  // Each count reads its own index (decision 131): the new subscriptions of the last 30 days, and
  // the usable ones by status and expiry, not every subscription ever sold.
  const [
    paidOrders,
    createdCounts,
    activeCounts,
    transitions,
    deviceCounts,
    pending,
    servers,
    outbox,
    reversed,
  ] = await Promise.all([
    paidOrdersByPlanAndDay(executor, oldest, now),
    executor
      .select(countsByWindow(subscriptions.createdAt, starts, now))
      .from(subscriptions)
      .where(gte(subscriptions.createdAt, oldest)),
    executor
      .select({ active: sql<number>`count(*)`.mapWith(Number) })
      .from(subscriptions)
      .where(usableSubscription(now)),
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

  const counts = { created: createdCounts[0]!, active: activeCounts[0]!.active };
  const devicesByWindow = deviceCounts[0]!;
  const windows = Object.fromEntries(
    DASHBOARD_WINDOWS.map((window) => {
      const rows = paidOrders.filter((row) => row.day >= isoDay(starts[window]));
      const { paidOrders: orders, revenueCents: gross } = orderTotals(rows);
      const creditedCents = reversed.credit[window];
      const refundedCents = reversed.refund[window];
      const disputedCents = reversed.dispute[window];
      return [
        window,
        {
          paidOrders: orders,
          grossRevenueCents: gross,
          creditedCents,
          refundedCents,
          disputedCents,
          revenueCents: gross - creditedCents - refundedCents - disputedCents,
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
