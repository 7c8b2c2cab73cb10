import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Transaction } from "#server/db/client.ts";
import { chargeReversals, subscriptions, type Subscription } from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { conflict } from "#server/domain/errors.ts";
import { queueCancelledEmail } from "#server/domain/mail/customer-emails.ts";
import { listAuditLog } from "#server/domain/ops/audit.ts";
import { revokeSubscriptionDevices } from "#server/domain/vpn/devices.ts";
import { lockSubscription } from "#server/domain/vpn/usable.ts";
import type { BillingServices } from "./fulfil.ts";
import { recordRefund, type Reversal } from "./reversals.ts";
import { parseOrderNumber, recordReversalMoney, refundableCharges } from "./ledger.ts";
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
import {
  cancelStripeSubscription,
  paymentIntentToRefund,
  pushNextBillingDate,
  refundPaymentIntent,
} from "./stripe-provider.ts";
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

const alreadyRefunded = () => conflict("This subscription has been refunded already.");

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
    const endedAt = current.expiresAt < now ? current.expiresAt : now;
    // Devices first: revoking locks their server's row, then its peer-version row, the order device
    // issuing takes them in; the status change after it logs peer changes (that row) again.
    const revokedDevices = await revokeSubscriptionDevices(tx, [current.id], now);
    const [ended] = await tx
      .update(subscriptions)
      .set({ status: "canceled", cancelAtPeriodEnd: false, expiresAt: endedAt, updatedAt: now })
      .where(eq(subscriptions.id, current.id))
      .returning();
    await queueCancelledEmail(tx, services, ended!, now);
    await audit(tx, { paidUntil: current.expiresAt.toISOString(), revokedDevices });
    return ended!;
  });
  services.mail.wake();
  return resultOf(row);
}

/**
 * Gives the payment back (Stripe: a refund of its payment intent, and a recurring plan cancelled
 * there; the built-in checkout: recorded only) and ends the plan through the refund path Stripe's
 * `charge.refunded` takes, so that event changes nothing more when it arrives. Once only: 409.
 */
export async function refundSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof refundSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription, session, provider } = await findSubscription(services.db, input.subscriptionId);
  requireApplicable(
    { ...subscription, demoPurchase: isDemoPurchase(provider, services.config) },
    "refund",
    now,
  );
  if (provider === "test") return refundDemoCharges(services, staff, input, subscription, now);
  if (input.orderNumber !== undefined)
    throw conflict(
      "A plan billed by Stripe is refunded from its latest payment: leave out the order number.",
    );
  const refund: Omit<Reversal, "kind"> = await atStripe(
    services,
    "refunding a payment",
    subscription.id,
    async () => {
      const paymentIntentId = await paymentIntentToRefund(services.config, {
        paymentReference: session.paymentReference,
        stripeSubscriptionId: subscription.stripeSubscriptionId,
      });
      if (!paymentIntentId) throw conflict("Stripe holds no payment of this subscription to refund.");
      const made = await refundPaymentIntent(
        services.config,
        paymentIntentId,
        `staff-refund-${subscription.id}`,
      );
      if (subscription.stripeSubscriptionId)
        await cancelStripeSubscription(services.config, subscription.stripeSubscriptionId);
      return {
        id: made.chargeId ?? `refund:${subscription.id}`,
        paymentIntentId,
        customerId: subscription.stripeCustomerId,
        amountCents: made.amountCents,
        currency: made.currency,
        reason: input.reason,
      };
    },
  );
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    if (current.status !== "refunded") await recordRefund(tx, services, current, refund, provider, now);
    // Stripe's `charge.refunded` for this very refund may have landed first: still ours to record.
    else if (!(await ownRefundAppliedByWebhook(tx, current.id, refund.id))) throw alreadyRefunded();
    await subscriptionAudit(
      staff,
      "subscription.refund",
      input,
      now,
    )(tx, {
      amountCents: refund.amountCents,
      currency: refund.currency,
      provider,
      refundOf: refund.id,
    });
    return lockSubscription(tx, current.id);
  });
  services.mail.wake();
  return resultOf(row);
}

/**
 * The built-in checkout's refund, recorded only: the chosen charge, or every charge still
 * refundable. The plan ends (devices revoked, customer told) once nothing is left to refund; a
 * refund of one charge among several keeps it running.
 */
async function refundDemoCharges(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof refundSubscriptionSchema>,
  subscription: Subscription,
  now: Date,
): Promise<StaffSubscriptionResult> {
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    requireApplicable({ ...current, demoPurchase: isDemoPurchase("test", services.config) }, "refund", now);
    const refundable = await refundableCharges(tx, current.id);
    const orderNumber = input.orderNumber === undefined ? null : parseOrderNumber(input.orderNumber);
    const chosen =
      input.orderNumber === undefined
        ? refundable
        : refundable.filter(({ charge }) => charge.orderNumber === orderNumber);
    if (chosen.length === 0)
      throw input.orderNumber === undefined
        ? alreadyRefunded()
        : conflict("That order is not a charge of this subscription with anything left to refund.");
    const refunds = chosen.map(({ charge, refundableCents }) => ({
      id: `test-refund:${charge.id}:${now.getTime()}`,
      paymentIntentId: charge.providerReference,
      customerId: null,
      amountCents: refundableCents,
      currency: charge.currency,
      reason: input.reason,
      orderNumber: charge.orderNumber,
    }));
    const [first, ...rest] = refunds;
    if (chosen.length === refundable.length) await recordRefund(tx, services, current, first!, "test", now);
    else await recordReversalMoney(tx, { ...first!, kind: "refund" }, current, "test", now);
    for (const refund of rest)
      await recordReversalMoney(tx, { ...refund, kind: "refund" }, current, "test", now);
    await subscriptionAudit(
      staff,
      "subscription.refund",
      input,
      now,
    )(tx, {
      amountCents: refunds.reduce((sum, refund) => sum + refund.amountCents, 0),
      currency: first!.currency,
      provider: "test",
      orders: refunds.map((refund) => refund.orderNumber),
    });
    return lockSubscription(tx, current.id);
  });
  services.mail.wake();
  return resultOf(row);
}

async function ownRefundAppliedByWebhook(tx: Transaction, subscriptionId: string, refundId: string) {
  const [reversal] = await tx
    .select({ id: chargeReversals.id })
    .from(chargeReversals)
    .where(and(eq(chargeReversals.id, refundId), eq(chargeReversals.subscriptionId, subscriptionId)));
  if (!reversal) return false;
  const { entries } = await listAuditLog(tx, {
    action: "subscription.refund",
    targetType: "subscription",
    targetId: subscriptionId,
    limit: 1,
  });
  return entries.length === 0;
}
