import { and, gt, inArray, type SQL } from "drizzle-orm";
import { subscriptions, type Subscription } from "#server/db/schema/index.ts";

// Which subscriptions give their devices a working peer: active or past due (Stripe's grace
// while a renewal is retried), and not yet past their period's end. The one place this rule
// is written; the expiry timer (lifecycle.ts) turns a lapsed one into `expired` or `canceled`.

export const USABLE_SUBSCRIPTION_STATUSES = ["active", "past_due"] as const satisfies ReadonlyArray<
  Subscription["status"]
>;

/** The rule as a condition on `subscriptions`, for queries. */
export function usableSubscription(now: Date): SQL {
  return and(
    inArray(subscriptions.status, [...USABLE_SUBSCRIPTION_STATUSES]),
    gt(subscriptions.expiresAt, now),
  )!;
}

/** The rule for a subscription already read. */
export function isUsableSubscription(
  subscription: Pick<Subscription, "status" | "expiresAt">,
  now: Date,
): boolean {
  return (
    (USABLE_SUBSCRIPTION_STATUSES as ReadonlyArray<string>).includes(subscription.status) &&
    subscription.expiresAt > now
  );
}
