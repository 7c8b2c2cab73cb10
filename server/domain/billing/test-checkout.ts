import { findPlan, type Plan } from "#core/plans.ts";
import { usesTestCheckout } from "#server/config.ts";
import { generateToken } from "#server/secrets.ts";
import { findCheckoutSession, recordPayment } from "./checkout.ts";
import { fulfil, type BillingServices } from "./fulfil.ts";

/** The built-in checkout behaves like the provider's test mode. */
export const PAYING_TEST_CARDS = new Set(["4242424242424242", "5555555555554444"]);
export const DECLINED_TEST_CARD = "4000000000000002";

export interface TestCheckoutView {
  sessionId: string;
  plan: Plan;
  amountCents: number;
  currency: string;
  customerEmail: string | null;
  paid: boolean;
  /** Where the paid checkout returns: a pass's own checkout to /account (plan-change.ts), else the success page. */
  returnTo: string;
}

/**
 * A session of the built-in checkout that can still be shown or paid. None can once the store
 * is live or Stripe is configured, not even one created before: it would sell a config unpaid.
 */
export async function loadTestCheckout(
  services: Pick<BillingServices, "db" | "config">,
  sessionId: string,
): Promise<TestCheckoutView | undefined> {
  if (!usesTestCheckout(services.config)) return undefined;
  if (!/^cs_test_[A-Za-z0-9_-]{10,64}$/.test(sessionId)) return undefined;
  const session = await findCheckoutSession(services.db, sessionId);
  const plan = session && findPlan(session.planId);
  if (!session || session.provider !== "test" || !plan) return undefined;
  return {
    sessionId: session.id,
    plan,
    amountCents: session.amountCents,
    currency: session.currency,
    customerEmail: session.customerEmail,
    paid: session.status === "paid",
    returnTo: session.renewsSubscriptionId
      ? "/account?plan-change=paid"
      : `/payment-success?session_id=${encodeURIComponent(session.id)}`,
  };
}

export interface CardInput {
  cardNumber: string;
  expiry: string;
  cvc: string;
}

export type CardFieldErrors = Partial<Record<keyof CardInput, string>>;

/** Field checks a real checkout makes before it talks to the bank. */
export function checkCard(input: CardInput, now = new Date()): CardFieldErrors {
  const errors: CardFieldErrors = {};
  const digits = input.cardNumber.replace(/[\s-]/g, "");
  if (!/^\d{12,19}$/.test(digits)) errors.cardNumber = "Your card number is incomplete.";
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.expiry);
  if (!expiry) {
    errors.expiry = "Your card's expiration date is incomplete.";
  } else {
    const month = Number(expiry[1]);
    const year = Number(expiry[2]!.length === 2 ? `20${expiry[2]}` : expiry[2]);
    const endOfMonth = Date.UTC(year, month, 1);
    if (month < 1 || month > 12) errors.expiry = "Your card's expiration date is invalid.";
    else if (endOfMonth <= now.getTime()) errors.expiry = "Your card's expiration year is in the past.";
  }
  if (!/^\d{3,4}$/.test(input.cvc.trim())) errors.cvc = "Your card's security code is incomplete.";
  return errors;
}

export type TestPaymentResult =
  | { outcome: "paid"; sessionId: string; returnTo: string }
  | { outcome: "declined"; message: string }
  | { outcome: "invalid"; errors: CardFieldErrors }
  | { outcome: "unknown-session" };

/** Pays a built-in checkout session: records the payment, then runs the same fulfilment as a webhook. */
export async function payTestCheckout(
  services: BillingServices,
  sessionId: string,
  card: CardInput,
): Promise<TestPaymentResult> {
  const view = await loadTestCheckout(services, sessionId);
  if (!view) return { outcome: "unknown-session" };
  if (view.paid) {
    await fulfil(services, sessionId);
    return { outcome: "paid", sessionId, returnTo: view.returnTo };
  }
  const errors = checkCard(card);
  if (Object.keys(errors).length) return { outcome: "invalid", errors };
  const digits = card.cardNumber.replace(/[\s-]/g, "");
  if (digits === DECLINED_TEST_CARD) return { outcome: "declined", message: "Your card was declined." };
  if (!PAYING_TEST_CARDS.has(digits)) {
    return {
      outcome: "declined",
      message: "Your card was declined. Use a test card such as 4242 4242 4242 4242.",
    };
  }
  // The built-in checkout charges exactly the recorded price.
  const charged = { amountCents: view.amountCents, currency: view.currency };
  await recordPayment(
    services.db,
    services.logger,
    { id: sessionId, planId: view.plan.id, ...charged },
    { reference: `pi_test_${generateToken(12)}`, ...charged },
  );
  await fulfil(services, sessionId);
  return { outcome: "paid", sessionId, returnTo: view.returnTo };
}
