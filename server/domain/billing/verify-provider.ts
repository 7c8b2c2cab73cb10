import type { CheckoutSession } from "#server/db/schema/index.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import { recordPayment } from "./checkout.ts";
import { paymentNeedsReview, paymentNotCompleted, providerUnavailable } from "./errors.ts";
import type { BillingServices, StripeReferences } from "./fulfil.ts";
import { receivedPayment, sessionState, stripeClient } from "./stripe-provider.ts";
import { VERIFY_LIMITS } from "./verify-caller.ts";

/**
 * A Stripe session whose webhook has not arrived yet: ask Stripe, and record the payment if it is
 * paid (at the catalogue price, else it needs review). Stripe is asked about one session at most
 * once per few seconds, however often the page polls.
 */
export async function confirmWithProvider(
  services: BillingServices,
  session: CheckoutSession,
  now: Date,
): Promise<StripeReferences> {
  if (session.status === "amount_mismatch") throw paymentNeedsReview();
  if (session.provider !== "stripe" || !services.config.STRIPE_SECRET_KEY) throw paymentNotCompleted();
  const recentlyAsked = await consumeRateLimit(services.db, `stripe-session-check:${session.id}`, {
    ...VERIFY_LIMITS.stripeCheck,
    now: now.getTime(),
  });
  if (!recentlyAsked.allowed) throw paymentNotCompleted();
  let state;
  try {
    state = sessionState(await (await stripeClient(services.config)).checkout.sessions.retrieve(session.id));
  } catch (error) {
    services.logger.error(
      { err: error, sessionId: session.id },
      "stripe: retrieving a checkout session failed",
    );
    throw providerUnavailable();
  }
  if (!state.paid) throw paymentNotCompleted();
  const status = await recordPayment(services.db, services.logger, session, receivedPayment(state), now);
  if (status === "amount_mismatch") throw paymentNeedsReview();
  return { stripeCustomerId: state.customerId, stripeSubscriptionId: state.subscriptionId };
}
