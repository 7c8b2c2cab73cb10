import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, devices, subscriptions } from "#server/db/schema/index.ts";
import { deviceSummary, ensureFirstDevice } from "#server/domain/vpn/devices.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { isUsable, usableSubscription } from "#server/domain/vpn/usable.ts";
import { fulfilCheckout, type BillingServices } from "./fulfil.ts";

/** A paid order whose buyer verify-payment answers with Configuration Pending. */
export interface AwaitingConfig {
  checkoutSessionId: string;
  /** Null while fulfilment has not recorded the subscription yet. */
  subscriptionId: string | null;
  planId: string;
  paidAt: Date;
}

/**
 * How long a paid checkout is fulfilment in flight rather than a buyer waiting: the payment is
 * recorded a moment before the transaction that writes its subscription and slot 1 commits
 * (decision 121). A soak saw a checkout listed 11 ms after it was paid.
 */
export const FULFILMENT_GRACE_MS = 60_000;

/**
 * The one rule `serveWaitingBuyers`, the dashboard, /metrics and the staff alert share, oldest
 * first: a usable subscription that never got slot 1 (no VPN server had room,
 * `ensureFirstDevice`), and a paid session whose fulfilment has not recorded its subscription
 * yet, each paid at least `FULFILMENT_GRACE_MS` before `now`. A pass's own checkout from /account
 * (plan-change.ts) joins the pass it renews, which has its own devices: it is never a buyer
 * waiting. Subscriptions are read on their own because housekeeping may have purged an old session row.
 */
export async function awaitingConfiguration(executor: Executor, now: Date): Promise<AwaitingConfig[]> {
  const paidBefore = new Date(now.getTime() - FULFILMENT_GRACE_MS);
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
    .where(
      and(
        // The flag narrows to the few candidates (its partial index, decision 138); the device
        // rows decide.
        sql`not ${subscriptions.hasSlotOne}`,
        usableSubscription(now),
        lte(subscriptions.createdAt, paidBefore),
        sql`not exists (${slotOne})`,
      ),
    );
  const paidAt = sql<Date>`coalesce(${checkoutSessions.paidAt}, ${checkoutSessions.createdAt})`;
  const withoutSubscription = await executor
    .select({
      checkoutSessionId: checkoutSessions.id,
      planId: checkoutSessions.planId,
      paidAt: paidAt.mapWith((value: Date | string) => new Date(value)),
    })
    .from(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.status, "paid"),
        isNull(checkoutSessions.renewsSubscriptionId),
        // As above: the flag's partial index finds the candidates, the subscriptions decide (an
        // anti-join probing their index for each candidate, not a hash of them all).
        sql`not ${checkoutSessions.hasSubscription}`,
        or(
          lte(checkoutSessions.paidAt, paidBefore),
          and(isNull(checkoutSessions.paidAt), lte(checkoutSessions.createdAt, paidBefore)),
        ),
        sql`not exists (${executor
          .select({ one: sql`1` })
          .from(subscriptions)
          .where(eq(subscriptions.checkoutSessionId, checkoutSessions.id))})`,
      ),
    );
  return [...withoutDevice, ...withoutSubscription.map((row) => ({ ...row, subscriptionId: null }))].sort(
    (a, b) => a.paidAt.getTime() - b.paidAt.getTime(),
  );
}

/** How many waiting buyers one run serves at most (oldest first); the next run takes the rest. */
export const WAITING_BUYERS_PER_RUN = 50;

/**
 * Buyers waiting at Configuration Pending get their first device (and its config e-mail) once a
 * VPN server has room, whether or not their success page is still open: the same
 * `fulfilCheckout` / `ensureFirstDevice` the success page's verification runs, oldest first, each
 * in its own transaction. Stops at the first one that still finds no room. Buyers within the grace
 * are left to the fulfilment in flight (and their success page, which asks again): serving them
 * here would only queue behind its transaction.
 */
export async function serveWaitingBuyers(
  services: BillingServices,
  now = new Date(),
): Promise<{ configsIssued: number }> {
  if (!(await anyServerCanTakeDevice(services.db))) return { configsIssued: 0 };
  const waiting = (await awaitingConfiguration(services.db, now)).slice(0, WAITING_BUYERS_PER_RUN);
  let configsIssued = 0;
  try {
    for (const buyer of waiting) {
      const outcome = await services.db.transaction(async (tx): Promise<"issued" | "no-room" | "gone"> => {
        if (buyer.subscriptionId === null) {
          const subscription = (await fulfilCheckout(tx, services, buyer.checkoutSessionId, {}, now))
            ?.subscription;
          if (!subscription || !isUsable(subscription, now)) return "gone";
          return (await deviceSummary(tx, subscription.id)).firstDevice ? "issued" : "no-room";
        }
        const [subscription] = await tx
          .select()
          .from(subscriptions)
          .where(eq(subscriptions.id, buyer.subscriptionId));
        // Ended or refunded since it was listed: nothing to deliver.
        if (!subscription || !isUsable(subscription, now)) return "gone";
        return (await ensureFirstDevice(tx, services, subscription)) ? "issued" : "no-room";
      });
      if (outcome === "no-room") break;
      if (outcome === "issued") configsIssued += 1;
    }
  } finally {
    if (configsIssued > 0) services.mail.wake();
  }
  return { configsIssued };
}
