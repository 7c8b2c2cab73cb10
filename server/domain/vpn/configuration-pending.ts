import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, devices, subscriptions } from "#server/db/schema/index.ts";
import { usableSubscription } from "./usable.ts";

/** A paid order whose buyer verify-payment answers with Configuration Pending. */
export interface AwaitingConfig {
  checkoutSessionId: string;
  /** Null while fulfilment has not recorded the subscription yet. */
  subscriptionId: string | null;
  planId: string;
  paidAt: Date;
}

/**
 * The one rule the dashboard, /metrics and the staff alert share, oldest first: a usable
 * subscription that never got slot 1 (no VPN server had room, `ensureFirstDevice`), and a paid
 * session whose fulfilment has not recorded its subscription yet. Subscriptions are read on their
 * own because housekeeping may have purged an old session row.
 */
export async function awaitingConfiguration(executor: Executor, now: Date): Promise<AwaitingConfig[]> {
  const slotOne = executor
    .select({ one: sql`1` })
    .from(devices)
    .where(and(eq(devices.subscriptionId, subscriptions.id), eq(devices.slot, 1)));
  const withoutDevice = await executor
    .select({
      checkoutSessionId: subscriptions.checkoutSessionId,
      subscriptionId: subscriptions.id,
      planId: subscriptions.planId,
      paidAt: subscriptions.createdAt,
    })
    .from(subscriptions)
    .where(and(usableSubscription(now), sql`not exists (${slotOne})`));
  const withoutSubscription = await executor
    .select({
      checkoutSessionId: checkoutSessions.id,
      planId: checkoutSessions.planId,
      paidAt: sql<Date>`coalesce(${checkoutSessions.paidAt}, ${checkoutSessions.createdAt})`.mapWith(
        (value: Date | string) => new Date(value),
      ),
    })
    .from(checkoutSessions)
    .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
    .where(and(eq(checkoutSessions.status, "paid"), isNull(subscriptions.id)));
  return [...withoutDevice, ...withoutSubscription.map((row) => ({ ...row, subscriptionId: null }))].sort(
    (a, b) => a.paidAt.getTime() - b.paidAt.getTime(),
  );
}
