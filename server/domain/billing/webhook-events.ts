import { and, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Transaction } from "#server/db/client.ts";
import { ledgerEntries, subscriptions, type Subscription } from "#server/db/schema/index.ts";
import { queueCancelledEmail, queuePeriodEmail } from "#server/domain/mail/customer-emails.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import { findCheckoutSession, recordPayment } from "./checkout.ts";
import { endSubscription } from "./end-subscription.ts";
import { fulfilCheckout, type BillingServices } from "./fulfil.ts";
import { closeDispute, disputeCharge, refundCharge, type DisputedCharge } from "./reversals.ts";
import { planChange } from "./plan-change.ts";
import { orderNumberOf, queueReceipt, recordMoney } from "./ledger.ts";
import {
  paymentIntentOfInvoice,
  receivedPayment,
  sessionState,
  stripeIdOf,
  subscriptionChangesFrom,
} from "./stripe-provider.ts";

// What each Stripe event the webhook accepts changes, inside the transaction that records the
// event's id (webhook.ts verifies the signature and keeps replays out).

/** The events `applyEvent` acts on: the Stripe webhook endpoint must send these (`npm run doctor` checks it). */
export const WEBHOOK_EVENTS = [
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "invoice.paid",
  "invoice.payment_failed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "charge.refunded",
  "charge.dispute.created",
  "charge.dispute.closed",
] as const;

export async function applyEvent(
  tx: Transaction,
  services: BillingServices,
  event: Stripe.Event,
  disputed: DisputedCharge | undefined,
): Promise<void> {
  const now = new Date();
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      const state = sessionState(session);
      if (!state.paid) return;
      const recorded = await findCheckoutSession(tx, session.id);
      if (!recorded) {
        services.logger.warn(
          { sessionId: session.id },
          "stripe webhook for a checkout session we did not create",
        );
        return;
      }
      await recordPayment(tx, services.logger, recorded, receivedPayment(state), now);
      await fulfilCheckout(
        tx,
        services,
        session.id,
        {
          stripeCustomerId: state.customerId,
          stripeSubscriptionId: state.subscriptionId,
        },
        now,
      );
      return;
    }
    case "invoice.paid": {
      const invoice = event.data.object;
      const subscription = await byStripeSubscription(tx, invoiceSubscriptionId(invoice));
      if (!subscription) return;
      // A renewal extends a paid-up subscription; a refunded or cancelled one stays ended.
      if (!isPaidUp(subscription.status)) {
        services.logger.warn(
          { subscriptionId: subscription.id, status: subscription.status, eventId: event.id },
          "stripe invoice.paid for an ended subscription; left ended",
        );
        await recordInvoiceMoney(tx, services, subscription, invoice, { receipt: false });
        return;
      }
      const periodEnd = Math.max(0, ...invoice.lines.data.map((line) => line.period?.end ?? 0));
      const paidUntil = periodEnd ? new Date(periodEnd * 1000) : undefined;
      const [renewed] = await tx
        .update(subscriptions)
        .set({
          status: "active",
          ...(paidUntil && paidUntil > subscription.expiresAt ? { expiresAt: paidUntil } : {}),
          updatedAt: now,
        })
        .where(eq(subscriptions.id, subscription.id))
        .returning();
      await recordInvoiceMoney(tx, services, renewed!, invoice, { receipt: true });
      return;
    }
    case "invoice.payment_failed": {
      const subscription = await byStripeSubscription(tx, invoiceSubscriptionId(event.data.object));
      // Stripe retries a failed renewal several times; the customer hears of it once, when it falls due.
      if (!subscription || subscription.status !== "active") return;
      await tx
        .update(subscriptions)
        .set({ status: "past_due", updatedAt: now })
        .where(eq(subscriptions.id, subscription.id));
      await queuePeriodEmail(tx, services, subscription, "payment-failed");
      return;
    }
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const remote = event.data.object;
      const subscription = await byStripeSubscription(tx, remote.id);
      if (!subscription) return;
      const ended = event.type === "customer.subscription.deleted" || remote.status === "canceled";
      // A refunded or disputed subscription stays so: Stripe keeps (or cancels) its own record of it.
      const paidUp = isPaidUp(subscription.status);
      if (ended) {
        await endSubscription(tx, services, subscription, { cause: "cancel", by: "stripe" }, now);
        return;
      }
      if (!paidUp) return;
      const changes = subscriptionChangesFrom(subscription, remote);
      await tx
        .update(subscriptions)
        .set({ ...changes, updatedAt: now })
        .where(eq(subscriptions.id, subscription.id));
      await planChange(
        { step: "stripe-updated", services, tx, subscription: { ...subscription, ...changes }, remote },
        now,
      );
      if (changes.cancelAtPeriodEnd && !subscription.cancelAtPeriodEnd)
        await queueCancelledEmail(tx, services, { ...subscription, ...changes }, now);
      if (!changes.cancelAtPeriodEnd && subscription.cancelAtPeriodEnd)
        await queuePeriodEmail(tx, services, { ...subscription, ...changes }, "subscription-resumed");
      return;
    }
    case "charge.refunded":
      await refundCharge(tx, services, event.data.object, now);
      return;
    case "charge.dispute.created":
      await disputeCharge(tx, services, event.data.object, disputed!, now);
      return;
    case "charge.dispute.closed":
      await closeDispute(tx, services, event.data.object, now);
      return;
    default:
      return;
  }
}

/**
 * The ledger's record of a paid invoice: a renewal, or the charge of a plan change Stripe invoiced
 * at once. Its negative lines (prorations of the unused part of the old plan) are recorded as a
 * credit and the charge as what was paid plus them, so the two net to what was paid. The charge
 * keeps the invoice's payment intent, which a staff refund of its order gives back. A plan
 * change's rows name the change and take its order number, which ends its "awaiting payment".
 * The first invoice of a subscription is the checkout's payment, recorded with the checkout: its
 * payment intent is kept on that row.
 */
async function recordInvoiceMoney(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
  invoice: Stripe.Invoice,
  options: { receipt: boolean },
) {
  const paymentIntentId = paymentIntentOfInvoice(invoice);
  if (invoice.billing_reason === "subscription_create") {
    if (paymentIntentId)
      await tx
        .update(ledgerEntries)
        .set({ providerReference: paymentIntentId })
        .where(
          and(
            eq(ledgerEntries.subscriptionId, subscription.id),
            eq(ledgerEntries.kind, "charge"),
            eq(ledgerEntries.purpose, "purchase"),
            eq(ledgerEntries.provider, "stripe"),
            sql`coalesce(${ledgerEntries.providerReference}, '') not like ${"pi\\_%"}`,
          ),
        );
    return;
  }
  const creditedCents = -invoice.lines.data
    .map((line) => line.amount)
    .filter((amount) => amount < 0)
    .reduce((sum, amount) => sum + amount, 0);
  const chargedCents = invoice.amount_paid + creditedCents;
  const paysPlanChange = invoice.billing_reason === "subscription_update";
  const change = paysPlanChange
    ? await planChange({ step: "invoice-paid", tx, subscriptionId: subscription.id })
    : undefined;
  const movement = {
    purpose: paysPlanChange ? ("plan_change" as const) : ("renewal" as const),
    currency: invoice.currency,
    planId: change?.toPlanId ?? subscription.planId,
    customerEmail: subscription.customerEmail,
    provider: "stripe" as const,
    providerReference: invoice.id,
    occurredAt: new Date((invoice.status_transitions?.paid_at ?? invoice.created) * 1000),
    ...(change ? { planChangeId: change.id, orderNumber: orderNumberOf(change.id) } : {}),
  };
  const charge =
    chargedCents > 0
      ? await recordMoney(tx, {
          ...movement,
          key: `charge:invoice:${invoice.id}`,
          kind: "charge",
          amountCents: chargedCents,
          subscriptionId: subscription.id,
          providerReference: paymentIntentId ?? invoice.id,
        })
      : undefined;
  if (creditedCents > 0)
    await recordMoney(tx, {
      ...movement,
      key: `credit:invoice:${invoice.id}`,
      kind: "credit",
      orderNumber: charge?.orderNumber ?? movement.orderNumber,
      amountCents: creditedCents,
      subscriptionId: subscription.id,
    });
  if (charge && options.receipt) await queueReceipt(tx, services, subscription, charge);
}

function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const fromParent = stripeIdOf(invoice.parent?.subscription_details?.subscription);
  // Older API versions put it on the invoice itself.
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return fromParent ?? stripeIdOf(legacy);
}

async function byStripeSubscription(tx: Transaction, stripeSubscriptionId: string | null) {
  if (!stripeSubscriptionId) return undefined;
  const [row] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId))
    .for("update");
  return row;
}
