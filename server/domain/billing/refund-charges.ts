import { eq } from "drizzle-orm";
import type { Executor, Transaction } from "#server/db/client.ts";
import {
  ledgerEntries,
  type CheckoutSession,
  type LedgerEntry,
  type Subscription,
} from "#server/db/schema/index.ts";
import { conflict } from "#server/domain/errors.ts";
import { lockSubscription } from "#server/domain/vpn/usable.ts";
import type { BillingServices } from "./fulfil.ts";
import { parseOrderNumber, recordReversalMoney, refundableCharges } from "./ledger.ts";
import { recordRefund } from "./reversals.ts";
import { atStripe } from "./staff-action-support.ts";
import {
  cancelStripeSubscription,
  firstInvoicePaymentIntent,
  invoicePaymentIntent,
  refundPayment,
} from "./stripe-provider.ts";

// The refund machinery staff (staff-actions.ts) and the customer's 7-day guarantee (guarantee.ts)
// share: the charges chosen are given back through the provider, recorded once on the ledger
// (decision 120), and the plan ends (end-subscription.ts) when nothing refundable is left. Who
// refunds brings their own rule, audit entry and Stripe idempotency keys.

/** Who refunds and under which rule. */
export interface RefundBy {
  /**
   * Throws the 409 of a refund not allowed now: before the provider is asked, and for the built-in
   * checkout (nothing asked of a provider) again under the row lock.
   */
  check: (executor: Executor, subscription: Subscription, now: Date) => Promise<void>;
  /**
   * Under the row lock after Stripe refunded (the customer's: a second request that raced this one
   * is refused there); without it, what Stripe did is recorded whatever happened meanwhile (staff).
   */
  recheck?: (subscription: Subscription) => void;
  /** Writes the audit entry, in the refund's transaction. */
  audit: (tx: Transaction, details: Record<string, unknown>) => Promise<void>;
  /** Kept with the reversal. */
  reason: string | null;
  /** Stripe's idempotency key of one charge's refund, so a retried call refunds once. */
  idempotencyKey: (chargeId: string, cents: number) => string;
}

export const alreadyRefunded = () => conflict("This subscription has been refunded already.");

/**
 * Gives back one order by its number, or every charge still refundable. The plan ends (devices
 * revoked, customer told, Stripe's subscription cancelled) only when nothing refundable is left;
 * a refund of one charge among several keeps it running. Stripe's refunds are made first, then
 * recorded on the ledger keys Stripe's `charge.refunded` for the same refund uses, so that event
 * changes nothing more. Nothing left to refund: 409. Answers the subscription as it now is.
 */
export async function refundCharges(
  services: BillingServices,
  subscription: Subscription,
  provider: CheckoutSession["provider"],
  orderNumber: string | undefined,
  by: RefundBy,
  now: Date,
): Promise<Subscription> {
  await by.check(services.db, subscription, now);
  if (provider === "test") return refundDemoCharges(services, subscription, orderNumber, by, now);
  const refundable = await refundableCharges(services.db, subscription.id);
  const chosen = chooseCharges(refundable, orderNumber);
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
        by.idempotencyKey(charge.id, refundableCents),
      );
      refunds.push({ charge, paymentIntentId, refund });
    }
    if (endsPlan && subscription.stripeSubscriptionId)
      await cancelStripeSubscription(services.config, subscription.stripeSubscriptionId);
    return refunds;
  });
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    by.recheck?.(current);
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
        reason: by.reason,
        orderNumber: charge.orderNumber,
      };
      reversals.push(reversal);
      await recordReversalMoney(tx, { ...reversal, kind: "refund" }, current, "stripe", now);
    }
    const refundedCents = made.reduce((sum, { refund }) => sum + refund.amountCents, 0);
    if (endsPlan) await recordRefund(tx, services, current, reversals[0]!, "stripe", now, refundedCents);
    await by.audit(tx, {
      amountCents: refundedCents,
      currency: made[0]!.refund.currency,
      provider,
      orders: made.map(({ charge }) => charge.orderNumber),
      refundOf: made.map(({ refund }) => refund.chargeId),
    });
    return lockSubscription(tx, current.id);
  });
  services.mail.wake();
  return row;
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
  subscription: Subscription,
  orderNumber: string | undefined,
  by: RefundBy,
  now: Date,
): Promise<Subscription> {
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    await by.check(tx, current, now);
    const refundable = await refundableCharges(tx, current.id);
    const chosen = chooseCharges(refundable, orderNumber);
    const refunds = chosen.map(({ charge, refundableCents }) => ({
      id: `test-refund:${charge.id}:${now.getTime()}`,
      paymentIntentId: charge.providerReference,
      customerId: null,
      amountCents: refundableCents,
      currency: charge.currency,
      reason: by.reason,
      orderNumber: charge.orderNumber,
    }));
    const [first, ...rest] = refunds;
    if (chosen.length === refundable.length) await recordRefund(tx, services, current, first!, "test", now);
    else await recordReversalMoney(tx, { ...first!, kind: "refund" }, current, "test", now);
    for (const refund of rest)
      await recordReversalMoney(tx, { ...refund, kind: "refund" }, current, "test", now);
    await by.audit(tx, {
      amountCents: refunds.reduce((sum, refund) => sum + refund.amountCents, 0),
      currency: first!.currency,
      provider: "test",
      orders: refunds.map((refund) => refund.orderNumber),
    });
    return lockSubscription(tx, current.id);
  });
  services.mail.wake();
  return row;
}
