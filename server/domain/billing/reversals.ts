import { and, desc, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Transaction } from "#server/db/client.ts";
import {
  chargeReversals,
  checkoutSessions,
  ledgerEntries,
  subscriptions,
  type LedgerEntry,
  type ReversalKind,
  type Subscription,
} from "#server/db/schema/index.ts";
import type { CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import { queueDisputeNotice } from "#server/domain/mail/staff-emails.ts";
import { usableSubscription } from "#server/domain/vpn/usable.ts";
import { endSubscription } from "./end-subscription.ts";
import type { BillingServices } from "./fulfil.ts";
import { stripeIdOf, type DisputedCharge } from "./stripe-provider.ts";
import { recordMoney, recordReversalMoney, refundableCharges } from "./ledger.ts";

export { disputedCharge, type DisputedCharge } from "./stripe-provider.ts";

// Refunds and disputes take a payment back. Stripe does not promise event order, so one may
// arrive before the payment it reverses: it is then held (charge_reversals) and applied by
// fulfilment when the payment lands, which records the subscription ended, with no device.

/** A full refund or a dispute of a Stripe charge. */
export interface Reversal {
  /** The refunded charge's id, or the dispute's. */
  id: string;
  kind: ReversalKind;
  paymentIntentId: string | null;
  customerId: string | null;
  amountCents: number;
  currency: string;
  reason: string | null;
}

function disputeOf(dispute: Stripe.Dispute, charge: DisputedCharge): Reversal {
  return {
    id: dispute.id,
    kind: "dispute",
    paymentIntentId: stripeIdOf(dispute.payment_intent),
    customerId: charge.customerId,
    amountCents: dispute.amount,
    currency: dispute.currency,
    reason: dispute.reason,
  };
}

/**
 * `charge.refunded`: the money given back is recorded against the order the charge paid. The plan
 * ends when nothing of it is left to refund (the same rule as a staff refund): a partial refund,
 * or a full refund of one charge among several, keeps the service.
 */
export async function refundCharge(
  tx: Transaction,
  services: BillingServices,
  charge: Stripe.Charge,
  now: Date,
): Promise<void> {
  const refund: Reversal = {
    id: charge.id,
    kind: "refund",
    paymentIntentId: stripeIdOf(charge.payment_intent),
    customerId: stripeIdOf(charge.customer),
    amountCents: charge.amount_refunded,
    currency: charge.currency,
    reason: null,
  };
  await lockPayer(tx, refund.customerId ?? refund.paymentIntentId);
  const subscription = await chargedSubscription(tx, refund, now);
  if (subscription) {
    await recordReversalMoney(tx, refund, subscription, "stripe", now);
    if (!charge.refunded || (await refundableCharges(tx, subscription.id)).length > 0) return;
  } else if (!charge.refunded) return;
  await reverse(tx, services, refund, now);
}

/** `charge.dispute.created`: ends what the charge paid for, like a refund, and tells the staff. */
export async function disputeCharge(
  tx: Transaction,
  services: BillingServices,
  dispute: Stripe.Dispute,
  charge: DisputedCharge,
  now: Date,
): Promise<void> {
  const reversal = disputeOf(dispute, charge);
  const subscription = await reverse(tx, services, reversal, now);
  const dueBy = dispute.evidence_details?.due_by;
  await queueDisputeNotice(tx, services, {
    disputeId: reversal.id,
    reason: reversal.reason,
    amountCents: reversal.amountCents,
    currency: reversal.currency,
    subscription: subscription ?? null,
    chargeEmail: charge.email,
    stripeCustomerId: reversal.customerId,
    paymentIntentId: reversal.paymentIntentId,
    respondBy: dueBy ? new Date(dueBy * 1000) : null,
  });
}

/**
 * `charge.dispute.closed`: a dispute won gives the money back (the plan stays ended: the
 * customer chose to dispute it); a lost one moves nothing more. Both are recorded in the ledger.
 */
export async function closeDispute(
  tx: Transaction,
  services: Pick<BillingServices, "logger">,
  dispute: Stripe.Dispute,
  now: Date,
): Promise<void> {
  if (dispute.status !== "won" && dispute.status !== "lost") return;
  const [opened] = await tx
    .select()
    .from(ledgerEntries)
    .where(eq(ledgerEntries.key, `dispute:${dispute.id}`));
  if (!opened) {
    services.logger.warn(
      { disputeId: dispute.id },
      "stripe dispute closed that was never recorded as opened",
    );
    return;
  }
  const kind = dispute.status === "won" ? "dispute_won" : "dispute_lost";
  await recordMoney(tx, {
    key: `${kind}:${dispute.id}`,
    kind,
    orderNumber: opened.orderNumber,
    amountCents: dispute.status === "won" ? dispute.amount : opened.amountCents,
    currency: dispute.currency,
    subscriptionId: opened.subscriptionId,
    planId: opened.planId,
    customerEmail: opened.customerEmail,
    provider: "stripe",
    providerReference: dispute.id,
    occurredAt: now,
  });
}

/**
 * Ends the subscription the charge paid for (refunded or disputed, devices revoked), or holds the
 * reversal when no payment of that charge is recorded yet. Answers the subscription it ended.
 */
async function reverse(
  tx: Transaction,
  services: BillingServices,
  reversal: Reversal,
  now: Date,
): Promise<Subscription | undefined> {
  await lockPayer(tx, reversal.customerId ?? reversal.paymentIntentId);
  const subscription = await chargedSubscription(tx, reversal, now);
  if (subscription) {
    await endSubscription(
      tx,
      services,
      subscription,
      { cause: "reversal", reversal, provider: "stripe" },
      now,
    );
    return subscription;
  }
  await tx.insert(chargeReversals).values(reversal).onConflictDoNothing({ target: chargeReversals.id });
  services.logger.warn(
    { reversalId: reversal.id, kind: reversal.kind, paymentIntentId: reversal.paymentIntentId },
    "stripe reversal before its payment: held until the payment is recorded",
  );
  return undefined;
}

/**
 * A refund staff made of everything left: ends the subscription exactly as Stripe's
 * `charge.refunded` does and records the reversal as applied, so that event, arriving later for
 * the same charge, changes nothing more.
 */
export async function recordRefund(
  tx: Transaction,
  services: CustomerEmailDeps,
  subscription: Subscription,
  refund: Omit<Reversal, "kind"> & { orderNumber?: string },
  provider: LedgerEntry["provider"],
  now: Date,
  /** What the customer is told was given back, when more than this one refund (several orders). */
  refundedCents = refund.amountCents,
): Promise<void> {
  const reversal = { ...refund, kind: "refund" as const };
  await endSubscription(
    tx,
    services,
    subscription,
    { cause: "reversal", reversal, provider, toldCents: refundedCents },
    now,
  );
}

/**
 * Serialises the reversals and the fulfilment of one Stripe customer (or payment intent): a
 * reversal committing beside the payment it reverses would otherwise be held and never applied.
 */
export async function lockPayer(tx: Transaction, key: string | null): Promise<void> {
  if (key) await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`stripe-payer:${key}`}))`);
}

/**
 * The subscription a charge paid for: by its payment intent (a pass's checkout, or any charge
 * whose ledger row keeps it), else the customer's latest.
 */
async function chargedSubscription(
  tx: Transaction,
  reversal: Reversal,
  now: Date,
): Promise<Subscription | undefined> {
  if (reversal.paymentIntentId) {
    const [row] = await tx
      .select({ subscription: subscriptions })
      .from(checkoutSessions)
      .innerJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(eq(checkoutSessions.paymentReference, reversal.paymentIntentId));
    if (row) return row.subscription;
    // A later charge of a subscription (a pass extension's checkout, a renewal) is known by its ledger row.
    const [charged] = await tx
      .select({ subscription: subscriptions })
      .from(ledgerEntries)
      .innerJoin(subscriptions, eq(subscriptions.id, ledgerEntries.subscriptionId))
      .where(
        and(eq(ledgerEntries.kind, "charge"), eq(ledgerEntries.providerReference, reversal.paymentIntentId)),
      )
      .limit(1);
    if (charged) return charged.subscription;
  }
  if (!reversal.customerId) return undefined;
  const [row] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.stripeCustomerId, reversal.customerId))
    .orderBy(desc(usableSubscription(now)), desc(subscriptions.createdAt))
    .limit(1);
  return row;
}
