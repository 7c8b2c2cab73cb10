import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { findPlan, type Plan } from "#core/plans.ts";
import { usesTestCheckout } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, type CheckoutSession, type CheckoutStatus } from "#server/db/schema/index.ts";
import { invalidInput } from "#server/domain/errors.ts";
import type { Logger } from "#server/logger.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import type { AppServices } from "#server/services.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { checkoutUnavailable, nothingToSell } from "./errors.ts";
import { checkoutSessionParams, stripeClient } from "./stripe-provider.ts";

export type CheckoutServices = Pick<AppServices, "config" | "db" | "logger">;

/** A hosted checkout: Stripe Checkout when configured, otherwise the built-in test checkout. */
export interface CheckoutProvider {
  readonly name: CheckoutSession["provider"];
  /** Starts a hosted checkout for the plan and records it; returns where to send the buyer. */
  createSession(input: {
    plan: Plan;
    customerEmail: string | null;
    customerName: string | null;
    buyerTokenHash: string;
    /** A pass's own checkout from /account (plan-change.ts): it returns there. */
    renewsSubscriptionId?: string;
  }): Promise<{
    sessionId: string;
    url: string;
  }>;
}

export function checkoutProvider(services: CheckoutServices): CheckoutProvider {
  return usesTestCheckout(services.config) ? testProvider(services) : stripeProvider(services);
}

function stripeProvider(services: CheckoutServices): CheckoutProvider {
  return {
    name: "stripe",
    async createSession({ plan, customerEmail, customerName, buyerTokenHash, renewsSubscriptionId }) {
      const stripe = await stripeClient(services.config);
      // One key per checkout attempt: the SDK's own retries of this call never create a second session.
      let session;
      try {
        session = await stripe.checkout.sessions.create(
          checkoutSessionParams(services.config, plan, customerEmail, renewsSubscriptionId),
          { idempotencyKey: `create-checkout-${crypto.randomUUID()}` },
        );
      } catch (error) {
        services.logger.error({ err: error, planId: plan.id }, "stripe: creating a checkout session failed");
        throw checkoutUnavailable();
      }
      if (!session.url) throw new Error("Stripe returned a checkout session without a url");
      await services.db.insert(checkoutSessions).values({
        id: session.id,
        provider: "stripe",
        planId: plan.id,
        customerEmail,
        customerName,
        amountCents: plan.priceCents,
        currency: "usd",
        buyerTokenHash,
        renewsSubscriptionId,
      });
      return { sessionId: session.id, url: session.url };
    },
  };
}

function testProvider(services: CheckoutServices): CheckoutProvider {
  return {
    name: "test",
    async createSession({ plan, customerEmail, customerName, buyerTokenHash, renewsSubscriptionId }) {
      const sessionId = `cs_test_${generateToken(16)}`;
      await services.db.insert(checkoutSessions).values({
        id: sessionId,
        provider: "test",
        planId: plan.id,
        customerEmail,
        customerName,
        amountCents: plan.priceCents,
        currency: "usd",
        buyerTokenHash,
        renewsSubscriptionId,
      });
      // The built-in checkout is this same server, at its configured address (never the Host header's).
      return { sessionId, url: `${services.config.PUBLIC_URL}/checkout/${sessionId}` };
    },
  };
}

/**
 * Starts a checkout for the plan. `buyerToken` is the paying browser's secret (its buyer
 * cookie); the session keeps only its hash, which later lets that browser add devices.
 */
export async function createCheckout(
  services: CheckoutServices,
  input: {
    planId: string;
    /** Required: the receipt and the config e-mail go there. */
    customerEmail: string;
    customerName: string | null;
    buyerToken: string;
  },
): Promise<{ url: string; sessionId: string }> {
  const plan = findPlan(input.planId);
  if (!plan) throw invalidInput(`Unknown plan "${input.planId.slice(0, 40)}".`);
  // Never take money for a config no VPN server could carry.
  if (!(await anyServerCanTakeDevice(services.db))) {
    services.logger.error({ planId: plan.id }, "checkout refused: no VPN server can take a device");
    throw nothingToSell();
  }
  return checkoutProvider(services).createSession({
    plan,
    customerEmail: input.customerEmail,
    customerName: input.customerName,
    buyerTokenHash: hashToken(input.buyerToken),
  });
}

export async function findCheckoutSession(
  executor: Executor,
  sessionId: string,
): Promise<CheckoutSession | undefined> {
  const [row] = await executor.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
  return row;
}

export interface ReceivedPayment {
  reference: string | null;
  customerEmail?: string | null;
  /** The name the provider's checkout took; kept only when the buyer gave none before. */
  customerName?: string | null;
  /** What the provider charged, in the smallest currency unit; null when it did not say. */
  amountCents: number | null;
  currency: string | null;
}

/**
 * Records the payment of an open session, once (later calls keep the first payment's details).
 * The one place a payment is compared with the catalogue price recorded at checkout: when the
 * amount or currency differs the session becomes `amount_mismatch` — kept with both figures and
 * never fulfilled — instead of `paid`. Answers the session's status afterwards.
 */
export async function recordPayment(
  executor: Executor,
  logger: Pick<Logger, "warn">,
  session: Pick<CheckoutSession, "id" | "planId" | "amountCents" | "currency">,
  payment: ReceivedPayment,
  now = new Date(),
): Promise<CheckoutStatus | undefined> {
  const matchesPrice =
    payment.amountCents === session.amountCents &&
    payment.currency?.toLowerCase() === session.currency.toLowerCase();
  const [recorded] = await executor
    .update(checkoutSessions)
    .set({
      status: matchesPrice ? "paid" : "amount_mismatch",
      paidAt: now,
      paymentReference: payment.reference,
      paidAmountCents: payment.amountCents,
      paidCurrency: payment.currency,
      ...(payment.customerEmail ? { customerEmail: payment.customerEmail } : {}),
      ...(payment.customerName
        ? { customerName: sql`coalesce(${checkoutSessions.customerName}, ${payment.customerName})` }
        : {}),
    })
    .where(and(eq(checkoutSessions.id, session.id), eq(checkoutSessions.status, "open")))
    .returning({ status: checkoutSessions.status });
  if (!recorded) return (await findCheckoutSession(executor, session.id))?.status;
  if (!matchesPrice)
    logger.warn(
      {
        sessionId: session.id,
        planId: session.planId,
        expected: { amountCents: session.amountCents, currency: session.currency },
        received: { amountCents: payment.amountCents, currency: payment.currency },
      },
      "payment differs from the catalogue price: recorded as amount_mismatch, not fulfilled",
    );
  return recorded.status;
}
