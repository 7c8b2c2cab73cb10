import type Stripe from "stripe";
import type { Config } from "#server/config.ts";
import type { Subscription } from "#server/db/schema/index.ts";
import type { Plan } from "#core/plans.ts";
import type { ReceivedPayment } from "./checkout.ts";
import { providerUnavailable } from "./errors.ts";
import type { BillingServices } from "./fulfil.ts";

const clients = new WeakMap<StripeSettings, Stripe>();

/** The settings the SDK client is made from. */
export type StripeSettings = Pick<Config, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE">;

/**
 * One SDK client per configuration; `STRIPE_API_BASE` points it at a local stand-in in tests.
 * The SDK is loaded on first use: a shop on the built-in checkout never holds it in memory.
 */
export async function stripeClient(config: StripeSettings): Promise<Stripe> {
  const existing = clients.get(config);
  if (existing) return existing;
  if (!config.STRIPE_SECRET_KEY) throw new Error("STRIPE_SECRET_KEY is not set");
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  const { default: StripeSdk } = await import("stripe");
  const client = new StripeSdk(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol === "http:" ? "http" : "https",
        }
      : {}),
  });
  clients.set(config, client);
  return client;
}

/** Stripe refused the request itself (an unknown object, a wrong state): its SDK's error `type`. */
export function isStripeInvalidRequest(error: unknown): error is Error {
  return error instanceof Error && (error as { type?: unknown }).type === "StripeInvalidRequestError";
}

/** The Checkout Session parameters of one plan; prices come from the server's catalogue only. */
export function checkoutSessionParams(
  config: Config,
  plan: Plan,
  customerEmail: string | null,
  renewsSubscriptionId?: string,
): Stripe.Checkout.SessionCreateParams {
  const recurring = plan.billing === "recurring";
  const productData = {
    name: `${config.BRAND_NAME} ${plan.name}`,
    description: `${plan.devices}, Nigerian IP access (WireGuard)`,
  };
  return {
    mode: recurring ? "subscription" : "payment",
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: "usd",
          unit_amount: plan.priceCents,
          product_data: productData,
          ...(recurring ? { recurring: { interval: plan.interval ?? "month" } } : {}),
        },
      },
    ],
    // A pass's own checkout from /account returns there (plan-change.ts).
    success_url: renewsSubscriptionId
      ? `${config.PUBLIC_URL}/account?plan-change=paid`
      : `${config.PUBLIC_URL}/payment-success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: renewsSubscriptionId
      ? `${config.PUBLIC_URL}/account`
      : `${config.PUBLIC_URL}/get-started/payment`,
    client_reference_id: plan.id,
    metadata: { planId: plan.id },
    ...(customerEmail ? { customer_email: customerEmail } : {}),
    ...(recurring
      ? { subscription_data: { metadata: { planId: plan.id } } }
      : { payment_intent_data: { metadata: { planId: plan.id } }, customer_creation: "always" as const }),
  };
}

export interface StripeSessionState {
  paid: boolean;
  customerEmail: string | null;
  customerName: string | null;
  customerId: string | null;
  subscriptionId: string | null;
  paymentIntentId: string | null;
  /** What the buyer was charged, in the smallest unit of `currency` (lower case). */
  amountCents: number | null;
  currency: string | null;
}

/** The id of a Stripe reference, whether Stripe sent it as an id or expanded it into its object. */
export const stripeIdOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);

/** What a Checkout Session tells us about its payment, whether from a webhook or from asking Stripe. */
export function sessionState(session: Stripe.Checkout.Session): StripeSessionState {
  return {
    paid: session.payment_status === "paid" || session.payment_status === "no_payment_required",
    customerEmail: session.customer_details?.email ?? session.customer_email ?? null,
    customerName: session.customer_details?.name ?? null,
    customerId: stripeIdOf(session.customer),
    subscriptionId: stripeIdOf(session.subscription),
    paymentIntentId: stripeIdOf(session.payment_intent),
    amountCents: session.amount_total ?? null,
    currency: session.currency ?? null,
  };
}

/** The payment a paid session reports, to be recorded (and checked against the price) by `recordPayment`. */
export function receivedPayment(state: StripeSessionState): ReceivedPayment {
  return {
    reference: state.paymentIntentId ?? state.subscriptionId,
    customerEmail: state.customerEmail,
    customerName: state.customerName,
    amountCents: state.amountCents,
    currency: state.currency,
  };
}

export type StripeSubscriptionState = Pick<
  Stripe.Subscription,
  "status" | "cancel_at" | "cancel_at_period_end" | "items"
>;

/**
 * What Stripe's record of a live subscription means for ours (a paid-up one: the caller checks):
 * whether it cancels at the period end, past due or active again, and until when it runs. With
 * `cancel_at_period_end` the configs keep working until `expiresAt`; the expiry job revokes them
 * then. Used by the webhook and by the customer's own cancel and resume.
 */
export function subscriptionChangesFrom(
  subscription: Pick<Subscription, "status">,
  remote: StripeSubscriptionState,
): Pick<Subscription, "cancelAtPeriodEnd" | "status"> & { expiresAt?: Date } {
  const periodEnd = Math.max(0, ...remote.items.data.map((item) => item.current_period_end ?? 0));
  const endsAt = remote.cancel_at ?? (periodEnd || null);
  return {
    cancelAtPeriodEnd: remote.cancel_at_period_end || remote.cancel_at !== null,
    status:
      remote.status === "past_due" || remote.status === "unpaid"
        ? "past_due"
        : subscription.status === "past_due" && remote.status === "active"
          ? "active"
          : subscription.status,
    ...(endsAt ? { expiresAt: new Date(endsAt * 1000) } : {}),
  };
}

/**
 * The payment intent of a Stripe subscription's first invoice (the checkout's own payment: a
 * subscription-mode checkout names no payment intent). Null when Stripe knows of none.
 */
export async function firstInvoicePaymentIntent(
  config: Config,
  stripeSubscriptionId: string,
): Promise<string | null> {
  const invoices = await (
    await stripeClient(config)
  ).invoices.list({
    subscription: stripeSubscriptionId,
    status: "paid",
    limit: 100,
    expand: ["data.payments"],
  });
  // Newest first: the first invoice is the one Stripe says created the subscription, else the oldest.
  const first =
    invoices.data.find((invoice) => invoice.billing_reason === "subscription_create") ?? invoices.data.at(-1);
  return paymentIntentOfInvoice(first);
}

/** The payment intent that paid one invoice (a renewal's, a plan change's); null when none did. */
export async function invoicePaymentIntent(config: Config, invoiceId: string): Promise<string | null> {
  const invoice = await (await stripeClient(config)).invoices.retrieve(invoiceId, { expand: ["payments"] });
  return paymentIntentOfInvoice(invoice);
}

/**
 * The payment intent an invoice names: in its payments (API versions since 2025-03-31), or on the
 * invoice itself (older versions, and webhook payloads signed for them).
 */
export function paymentIntentOfInvoice(
  invoice: Pick<Stripe.Invoice, "payments"> | null | undefined,
): string | null {
  const payment = invoice?.payments?.data.find((entry) => entry.payment.payment_intent);
  const legacy = (invoice as { payment_intent?: string | { id: string } | null } | undefined)?.payment_intent;
  return stripeIdOf(payment?.payment.payment_intent) ?? stripeIdOf(legacy);
}

export interface StripeRefund {
  /** The refunded charge: Stripe's `charge.refunded` for this refund names it. */
  chargeId: string;
  /** This refund's amount. */
  amountCents: number;
  /** What the charge has had refunded in all, this refund included (as `charge.refunded` reports it). */
  refundedTotalCents: number;
  currency: string;
}

/**
 * Refunds `amountCents` of a payment intent; the key makes a retried staff refund one refund at
 * Stripe. The charge comes back expanded, so its refunded total is Stripe's own figure.
 */
export async function refundPayment(
  config: Config,
  paymentIntentId: string,
  amountCents: number,
  idempotencyKey: string,
): Promise<StripeRefund> {
  const refund = await (
    await stripeClient(config)
  ).refunds.create(
    {
      payment_intent: paymentIntentId,
      amount: amountCents,
      reason: "requested_by_customer",
      expand: ["charge"],
    },
    { idempotencyKey },
  );
  const charge = typeof refund.charge === "object" ? refund.charge : null;
  const chargeId = stripeIdOf(refund.charge);
  if (!chargeId) throw new Error(`Stripe refund ${refund.id} names no charge`);
  return {
    chargeId,
    amountCents: refund.amount,
    refundedTotalCents: charge?.amount_refunded ?? refund.amount,
    currency: refund.currency,
  };
}

/**
 * Moves a Stripe subscription's next charge to `until` without charging for the extra days:
 * Stripe's documented way is a trial until then, with no proration.
 */
export async function pushNextBillingDate(
  config: Config,
  stripeSubscriptionId: string,
  until: Date,
): Promise<void> {
  await (
    await stripeClient(config)
  ).subscriptions.update(stripeSubscriptionId, {
    trial_end: Math.floor(until.getTime() / 1000),
    proration_behavior: "none",
  });
}

/** Ends a Stripe subscription at once (no further charges); one already cancelled counts as done. */
export async function cancelStripeSubscription(config: Config, stripeSubscriptionId: string): Promise<void> {
  try {
    await (await stripeClient(config)).subscriptions.cancel(stripeSubscriptionId);
  } catch (error) {
    const alreadyEnded = isStripeInvalidRequest(error) && /canceled/i.test(error.message);
    if (!alreadyEnded) throw error;
  }
}

/** What a dispute does not say about its charge. */
export interface DisputedCharge {
  customerId: string | null;
  email: string | null;
}

/**
 * A dispute names its charge but not the customer, and a subscription's charges are known to us
 * only by customer: ask Stripe, before the event's transaction opens (no network call inside it).
 * A charge Stripe does not know leaves the customer unknown; Stripe being unreachable is a 502, so
 * Stripe delivers the event again.
 */
export async function disputedCharge(
  services: BillingServices,
  dispute: Stripe.Dispute,
): Promise<DisputedCharge> {
  let charge: Stripe.Charge | undefined;
  if (typeof dispute.charge !== "string") charge = dispute.charge;
  else {
    try {
      charge = await (await stripeClient(services.config)).charges.retrieve(dispute.charge);
    } catch (error) {
      if (!isStripeInvalidRequest(error)) {
        services.logger.error(
          { err: error, disputeId: dispute.id },
          "stripe: retrieving a disputed charge failed",
        );
        throw providerUnavailable();
      }
      services.logger.warn({ disputeId: dispute.id }, "stripe does not know the disputed charge");
    }
  }
  return {
    customerId: stripeIdOf(charge?.customer),
    email: charge?.billing_details?.email ?? charge?.receipt_email ?? null,
  };
}

/**
 * Moves a Stripe subscription's one item to the plan's price with Stripe's proration, as of
 * `prorationDate` (the moment the customer was quoted, so Stripe charges what they saw). Prices
 * are created inline from the catalogue on the item's own product, as checkout creates them.
 * The stored plan changes when Stripe's `customer.subscription.updated` arrives (plan-change.ts).
 */
export async function changeStripePlan(
  config: Config,
  stripeSubscriptionId: string,
  plan: Plan,
  prorationDate: Date,
) {
  const stripe = await stripeClient(config);
  const remote = await stripe.subscriptions.retrieve(stripeSubscriptionId);
  const item = remote.items.data[0];
  if (!item) throw new Error(`Stripe subscription ${stripeSubscriptionId} has no item`);
  const product = typeof item.price.product === "string" ? item.price.product : item.price.product.id;
  await stripe.subscriptions.update(
    stripeSubscriptionId,
    {
      items: [
        {
          id: item.id,
          price_data: {
            currency: "usd",
            product,
            unit_amount: plan.priceCents,
            recurring: { interval: plan.interval ?? "month" },
          },
        },
      ],
      proration_behavior: "create_prorations",
      proration_date: Math.floor(prorationDate.getTime() / 1000),
      metadata: { planId: plan.id },
    },
    // A retried change (the SDK's own retries, or a double click) is one change at Stripe.
    { idempotencyKey: `plan-change-${stripeSubscriptionId}-${plan.id}-${prorationDate.getTime()}` },
  );
}
