import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Transaction } from "#server/db/client.ts";
import {
  ledgerEntries,
  subscriptions,
  type LedgerEntry,
  type Subscription,
} from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { conflict } from "#server/domain/errors.ts";
import { lockSubscription } from "#server/domain/vpn/usable.ts";
import { endSubscription } from "./end-subscription.ts";
import type { BillingServices } from "./fulfil.ts";
import { recordRefund } from "./reversals.ts";
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
  firstInvoicePaymentIntent,
  invoicePaymentIntent,
  pushNextBillingDate,
  refundPayment,
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
 * Gives back what staff chose: one order by its number, or every charge still refundable. The
 * plan ends (devices revoked, customer told, Stripe's subscription cancelled) only when nothing
 * refundable is left; a refund of one charge among several keeps it running. Stripe's refunds
 * are made first, then recorded on the ledger keys Stripe's `charge.refunded` for the same refund
 * uses, so that event changes nothing more. Nothing left to refund: 409.
 */
export async function refundSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof refundSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  requireApplicable(
    { ...subscription, demoPurchase: isDemoPurchase(provider, services.config) },
    "refund",
    now,
  );
  if (provider === "test") return refundDemoCharges(services, staff, input, subscription, now);
  const refundable = await refundableCharges(services.db, subscription.id);
  const chosen = chooseCharges(refundable, input.orderNumber);
  const endsPlan = chosen.length === refundable.length;
  const made = await atStripe(services, "refunding a payment", subscription.id, async () => {
    // Every payment is found before any is refunded: an order Stripe holds no payment of refunds nothing.
    const payments = [];
    for (const entry of chosen) {
      const paymentIntentId = await stripePaymentOf(services, subscription, entry.charge);
      if (!paymentIntentId)
        throw conflict(`Stripe holds no payment of order ${entry.charge.orderNumber} to refund.`);
      payments.push({ ...entry, paymentIntentId });
    }
    const refunds = [];
    for (const { charge, refundableCents, paymentIntentId } of payments) {
      const refund = await refundPayment(
        services.config,
        paymentIntentId,
        refundableCents,
        `staff-refund-${charge.id}-${refundableCents}`,
      );
      refunds.push({ charge, paymentIntentId, refund });
    }
    if (endsPlan && subscription.stripeSubscriptionId)
      await cancelStripeSubscription(services.config, subscription.stripeSubscriptionId);
    return refunds;
  });
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    const reversals = [];
    for (const { charge, paymentIntentId, refund } of made) {
      // The charge's own payment, kept for the next refund and for Stripe's events about it.
      if (charge.providerReference !== paymentIntentId)
        await tx
          .update(ledgerEntries)
          .set({ providerReference: paymentIntentId })
          .where(eq(ledgerEntries.id, charge.id));
      const reversal = {
        id: refund.chargeId,
        paymentIntentId,
        customerId: current.stripeCustomerId,
        // The charge's refunded total, as Stripe's `charge.refunded` reports it: one ledger key.
        amountCents: refund.refundedTotalCents,
        currency: refund.currency,
        reason: input.reason,
        orderNumber: charge.orderNumber,
      };
      reversals.push(reversal);
      await recordReversalMoney(tx, { ...reversal, kind: "refund" }, current, "stripe", now);
    }
    const refundedCents = made.reduce((sum, { refund }) => sum + refund.amountCents, 0);
    if (endsPlan) await recordRefund(tx, services, current, reversals[0]!, "stripe", now, refundedCents);
    await subscriptionAudit(
      staff,
      "subscription.refund",
      input,
      now,
    )(tx, {
      amountCents: refundedCents,
      currency: made[0]!.refund.currency,
      provider,
      orders: made.map(({ charge }) => charge.orderNumber),
      refundOf: made.map(({ refund }) => refund.chargeId),
    });
    return lockSubscription(tx, current.id);
  });
  services.mail.wake();
  return resultOf(row);
}

/** The charges a refund gives back: the order named, or all still refundable (409 when none). */
function chooseCharges(
  refundable: Awaited<ReturnType<typeof refundableCharges>>,
  orderNumberInput: string | undefined,
) {
  if (orderNumberInput === undefined) {
    if (refundable.length === 0) throw alreadyRefunded();
    return refundable;
  }
  const orderNumber = parseOrderNumber(orderNumberInput);
  const chosen = refundable.filter(({ charge }) => charge.orderNumber === orderNumber);
  if (chosen.length === 0)
    throw conflict("That order is not a charge of this subscription with anything left to refund.");
  return chosen;
}

/**
 * The payment intent a charge was paid with: recorded on its ledger row, else asked of Stripe —
 * its invoice's (a renewal or plan change), or the subscription's first invoice's (its purchase).
 */
async function stripePaymentOf(
  services: BillingServices,
  subscription: Subscription,
  charge: LedgerEntry,
): Promise<string | null> {
  if (charge.providerReference?.startsWith("pi_")) return charge.providerReference;
  const invoiceId = /^charge:invoice:(.+)$/.exec(charge.key)?.[1];
  if (invoiceId) return invoicePaymentIntent(services.config, invoiceId);
  if (charge.purpose === "purchase" && subscription.stripeSubscriptionId)
    return firstInvoicePaymentIntent(services.config, subscription.stripeSubscriptionId);
  return null;
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
    const chosen = chooseCharges(refundable, input.orderNumber);
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
