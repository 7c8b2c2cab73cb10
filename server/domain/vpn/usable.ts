import { and, eq, gt, inArray, type SQL } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { subscriptions, type Subscription, type SubscriptionStatus } from "#server/db/schema/index.ts";
import { subscriptionNotFound } from "#server/domain/billing/errors.ts";

/**
 * The one rule for "may this subscription's devices connect": paid up (active, or past due
 * while the provider retries the card) and inside its period. Peers, downloads, new devices
 * and expiry all ask this module.
 */
export const USABLE_STATUSES = ["active", "past_due"] as const satisfies readonly SubscriptionStatus[];

/** The status half of the rule: paid up, whatever the date says. */
export function isPaidUp(status: SubscriptionStatus): boolean {
  return (USABLE_STATUSES as readonly SubscriptionStatus[]).includes(status);
}

export function isUsable(subscription: Pick<Subscription, "status" | "expiresAt">, now: Date): boolean {
  return isPaidUp(subscription.status) && subscription.expiresAt > now;
}

/** The same rule as a condition on the `subscriptions` table. */
export function usableSubscription(now: Date): SQL {
  return and(inArray(subscriptions.status, [...USABLE_STATUSES]), gt(subscriptions.expiresAt, now))!;
}

/** How an unusable subscription is described to its owner ("expired" while the expiry job has not run yet). */
export function endedStatusOf(subscription: Pick<Subscription, "status" | "expiresAt">): string {
  return isPaidUp(subscription.status) ? "expired" : subscription.status;
}

/** The subscription row, locked for the rest of the transaction: whatever changes it or its devices waits here. */
export async function lockSubscription(tx: Transaction, subscriptionId: string): Promise<Subscription> {
  const [row] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, subscriptionId))
    .for("update");
  if (!row) throw subscriptionNotFound();
  return row;
}
