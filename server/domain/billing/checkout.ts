import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { findPlan, type Plan } from "#app/lib/plans.ts";
import { usesTestCheckout } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, type CheckoutSession } from "#server/db/schema/index.ts";
import { invalidInput } from "#server/domain/errors.ts";
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
    origin: string;
    buyerTokenHash: string;
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
    async createSession({ plan, customerEmail, buyerTokenHash }) {
      const stripe = stripeClient(services.config);
      // One key per checkout attempt: the SDK's own retries of this call never create a second session.
      let session;
      try {
        session = await stripe.checkout.sessions.create(
          checkoutSessionParams(services.config, plan, customerEmail),
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
        amountCents: plan.priceCents,
        currency: "usd",
        buyerTokenHash,
      });
      return { sessionId: session.id, url: session.url };
    },
  };
}

function testProvider(services: CheckoutServices): CheckoutProvider {
  return {
    name: "test",
    async createSession({ plan, customerEmail, origin, buyerTokenHash }) {
      const sessionId = `cs_test_${generateToken(16)}`;
      await services.db.insert(checkoutSessions).values({
        id: sessionId,
        provider: "test",
        planId: plan.id,
        customerEmail,
        amountCents: plan.priceCents,
        currency: "usd",
        buyerTokenHash,
      });
      // The built-in checkout is this same server: keep the buyer on the origin they use.
      return { sessionId, url: `${origin}/checkout/${sessionId}` };
    },
  };
}

/**
 * Starts a checkout for the plan. `buyerToken` is the paying browser's secret (its buyer
 * cookie); the session keeps only its hash, which later lets that browser add devices.
 */
export async function createCheckout(
  services: CheckoutServices,
  input: { planId: string; customerEmail: string | null; origin: string; buyerToken: string },
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
    origin: input.origin,
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

/** Marks an open session paid (once); later calls keep the first payment's details. */
export async function markCheckoutPaid(
  executor: Executor,
  sessionId: string,
  payment: { reference: string | null; customerEmail?: string | null },
): Promise<void> {
  await executor
    .update(checkoutSessions)
    .set({
      status: "paid",
      paidAt: new Date(),
      paymentReference: payment.reference,
      ...(payment.customerEmail ? { customerEmail: payment.customerEmail } : {}),
    })
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.status, "open")));
}
