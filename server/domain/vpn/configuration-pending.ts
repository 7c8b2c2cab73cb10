import { and, asc, eq, exists, not } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { usableSubscription } from "./usable.ts";

/** A paid-up subscription that never got its first device: its buyer sees Configuration Pending. */
export interface AwaitingConfig {
  subscriptionId: string;
  checkoutSessionId: string;
  planId: string;
  paidAt: Date;
}

/** Oldest first. Fulfilment leaves a subscription so only while no VPN server has room (`ensureFirstDevice`). */
export async function subscriptionsAwaitingConfig(executor: Executor, now: Date): Promise<AwaitingConfig[]> {
  return executor
    .select({
      subscriptionId: subscriptions.id,
      checkoutSessionId: subscriptions.checkoutSessionId,
      planId: subscriptions.planId,
      paidAt: subscriptions.createdAt,
    })
    .from(subscriptions)
    .where(
      and(
        usableSubscription(now),
        not(
          exists(
            executor
              .select({ id: devices.id })
              .from(devices)
              .where(eq(devices.subscriptionId, subscriptions.id)),
          ),
        ),
      ),
    )
    .orderBy(asc(subscriptions.createdAt));
}
