import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Transaction } from "#server/db/client.ts";
import { subscriptions } from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { lockSubscription } from "#server/domain/vpn/usable.ts";
import { endSubscription } from "./end-subscription.ts";
import type { BillingServices } from "./fulfil.ts";
import { refundCharges } from "./refund-charges.ts";
import {
  atStripe,
  resultOf,
  subscriptionAudit,
  subscriptionTarget,
  type StaffSubscriptionResult,
} from "./staff-action-support.ts";
import { requireApplicable } from "./subscription-actions.ts";
import { cancelAtPeriodEnd, findSubscription } from "./self-service.ts";
import { isDemoPurchase } from "./demo-purchases.ts";
import { cancelStripeSubscription, pushNextBillingDate } from "./stripe-provider.ts";
import { DAY_MS } from "#server/domain/time.ts";

// What staff do to a subscription from its page (issue 15, decision 077): extend, cancel, refund
// (reactivation.ts undoes a cancellation). Each is recorded in the staff audit log in the transaction of its change; a change
// at Stripe is made first, outside any transaction, and recorded here as it succeeded.

export const extendSubscriptionSchema = z
  .object({ ...subscriptionTarget, days: z.number().int().min(1).max(366) })
  .strict();
export const cancelSubscriptionSchema = z
  .object({ ...subscriptionTarget, when: z.enum(["now", "period-end"]) })
  .strict();
/** `orderNumber`: refund that one charge; without it, everything of the subscription still refundable. */
export const refundSubscriptionSchema = z
  .object({ ...subscriptionTarget, orderNumber: z.string().trim().max(20).optional() })
  .strict();

/** Adds `days` to the paid period (from today when it has lapsed); Stripe's next charge moves with it. */
export async function extendSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof extendSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  requireApplicable(
    { ...subscription, demoPurchase: isDemoPurchase(provider, services.config) },
    "extend",
    now,
  );
  const from = subscription.expiresAt > now ? subscription.expiresAt : now;
  const until = new Date(from.getTime() + input.days * DAY_MS);
  if (subscription.stripeSubscriptionId) {
    const stripeId = subscription.stripeSubscriptionId;
    await atStripe(services, "moving the next billing date", subscription.id, () =>
      pushNextBillingDate(services.config, stripeId, until),
    );
  }
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    requireApplicable(current, "extend", now);
    const [updated] = await tx
      .update(subscriptions)
      .set({ expiresAt: until, updatedAt: now })
      .where(eq(subscriptions.id, current.id))
      .returning();
    await subscriptionAudit(
      staff,
      "subscription.extend",
      input,
      now,
    )(tx, {
      days: input.days,
      from: current.expiresAt.toISOString(),
      until: until.toISOString(),
    });
    return updated!;
  });
  return resultOf(row);
}

/**
 * `period-end`: the customer's own cancel (configs work until the period ends). `now`: the plan
 * ends at once, its devices are revoked and Stripe stops charging; the customer is told.
 */
export async function cancelSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof cancelSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription } = await findSubscription(services.db, input.subscriptionId);
  const recordCancel = subscriptionAudit(staff, "subscription.cancel", input, now);
  const audit = (tx: Transaction, details: Record<string, unknown>) =>
    recordCancel(tx, { when: input.when, ...details });
  requireApplicable(subscription, input.when === "now" ? "cancel-now" : "cancel-period-end", now);
  if (input.when === "period-end") {
    const row = await cancelAtPeriodEnd(services, subscription.id, now, (tx, changed) =>
      audit(tx, { endsAt: changed.expiresAt.toISOString() }),
    );
    return resultOf(row);
  }
  if (subscription.stripeSubscriptionId) {
    const stripeId = subscription.stripeSubscriptionId;
    await atStripe(services, "cancelling a subscription", subscription.id, () =>
      cancelStripeSubscription(services.config, stripeId),
    );
  }
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    requireApplicable(current, "cancel-now", now);
    const { subscription: ended, revokedDevices } = await endSubscription(
      tx,
      services,
      current,
      { cause: "cancel", by: "staff" },
      now,
    );
    await audit(tx, { paidUntil: current.expiresAt.toISOString(), revokedDevices });
    return ended;
  });
  services.mail.wake();
  return resultOf(row);
}

/**
 * Gives back what staff chose: one order by its number, or every charge still refundable
 * (refund-charges.ts); the staff rule (subscription-actions.ts) decides whether it may, and the
 * staff audit log records who and why.
 */
export async function refundSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof refundSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  const demoPurchase = isDemoPurchase(provider, services.config);
  const row = await refundCharges(
    services,
    subscription,
    provider,
    input.orderNumber,
    {
      check: async (_executor, current, at) => requireApplicable({ ...current, demoPurchase }, "refund", at),
      audit: subscriptionAudit(staff, "subscription.refund", input, now),
      reason: input.reason,
      idempotencyKey: (chargeId, cents) => `staff-refund-${chargeId}-${cents}`,
    },
    now,
  );
  return resultOf(row);
}
