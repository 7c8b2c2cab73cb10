import Stripe from "stripe";
import type { Config } from "#server/config.ts";
import type { Plan } from "#app/lib/plans.ts";
import type { ReceivedPayment } from "./checkout.ts";

const clients = new WeakMap<Config, Stripe>();

/** One SDK client per configuration; `STRIPE_API_BASE` points it at a local stand-in in tests. */
export function stripeClient(config: Config): Stripe {
  const existing = clients.get(config);
  if (existing) return existing;
  if (!config.STRIPE_SECRET_KEY) throw new Error("STRIPE_SECRET_KEY is not set");
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  const client = new Stripe(config.STRIPE_SECRET_KEY, {
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

/** The Checkout Session parameters of one plan; prices come from the server's catalogue only. */
export function checkoutSessionParams(
  config: Config,
  plan: Plan,
  customerEmail: string | null,
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
    success_url: `${config.PUBLIC_URL}/payment-success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${config.PUBLIC_URL}/get-started/payment`,
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
  customerId: string | null;
  subscriptionId: string | null;
  paymentIntentId: string | null;
  /** What the buyer was charged, in the smallest unit of `currency` (lower case). */
  amountCents: number | null;
  currency: string | null;
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);

/** What a Checkout Session tells us about its payment, whether from a webhook or from asking Stripe. */
export function sessionState(session: Stripe.Checkout.Session): StripeSessionState {
  return {
    paid: session.payment_status === "paid" || session.payment_status === "no_payment_required",
    customerEmail: session.customer_details?.email ?? session.customer_email ?? null,
    customerId: idOf(session.customer),
    subscriptionId: idOf(session.subscription),
    paymentIntentId: idOf(session.payment_intent),
    amountCents: session.amount_total ?? null,
    currency: session.currency ?? null,
  };
}

/** The payment a paid session reports, to be recorded (and checked against the price) by `recordPayment`. */
export function receivedPayment(state: StripeSessionState): ReceivedPayment {
  return {
    reference: state.paymentIntentId ?? state.subscriptionId,
    customerEmail: state.customerEmail,
    amountCents: state.amountCents,
    currency: state.currency,
  };
}
