import { eq } from "drizzle-orm";
import { z } from "zod";
import { PLAN_IDS } from "#core/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import {
  planChanges,
  subscriptions,
  type CheckoutSession,
  type Subscription,
} from "#server/db/schema/index.ts";
import { conflict } from "#server/domain/errors.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import { checkoutProvider } from "./checkout.ts";
import { isDemoPurchase } from "./demo-purchases.ts";
import type { BillingServices, StripeReferences } from "./fulfil.ts";
import { checkoutCharge, orderNumberOf, queueReceipt, recordMoney } from "./ledger.ts";
import { planChangeTerms } from "./plan-change-rules.ts";
import { applyChange } from "./plan-change-effects.ts";
import { quotePlanChange } from "./plan-changes.ts";
import { findSubscription } from "./self-service.ts";

// An Unlock Pass holder's own checkout: the pass again (7 more days on the same
// pass) or a recurring plan (the pass becomes that subscription, devices and all). Paid like any
// checkout; its fulfilment changes the pass instead of creating a second subscription.

export const passCheckoutSchema = z.object({ subscriptionId: z.uuid(), planId: z.enum(PLAN_IDS) }).strict();

/** Starts the checkout; the subscription must be a usable pass (the quote refuses anything else). */
export async function startPassCheckout(
  services: BillingServices,
  input: z.infer<typeof passCheckoutSchema>,
  now = new Date(),
): Promise<{ url: string; sessionId: string }> {
  const quote = await quotePlanChange(services, input, now);
  if (!quote.throughCheckout) throw passOnly();
  const { subscription } = await findSubscription(services.db, input.subscriptionId);
  return checkoutProvider(services).createSession({
    plan: planChangeTerms(subscription.planId, input.planId, subscription.expiresAt, now).to,
    customerEmail: subscription.customerEmail,
    customerName: null,
    // Signed in on /account, the customer needs no buyer cookie: this hash matches no cookie.
    buyerTokenHash: hashToken(generateToken()),
    renewsSubscriptionId: subscription.id,
  });
}

const passOnly = () =>
  conflict("Only an Unlock Pass changes through a checkout: change this plan directly instead.");

/**
 * Fulfilment of a pass's own paid checkout (fulfil.ts): once per session, the pass gets 7 more
 * days or becomes the recurring plan it paid for, with the customer's e-mail. A pass refunded
 * or disputed meanwhile stays ended (the payment is logged for staff).
 */
export async function applyPassCheckout(
  tx: Transaction,
  services: BillingServices,
  session: CheckoutSession,
  references: StripeReferences,
  now: Date,
): Promise<Subscription | undefined> {
  const [pass] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, session.renewsSubscriptionId!))
    .for("update");
  if (!pass) return undefined;
  // Paid on the demo's test card but not applied before the store went live: no real money.
  if (isDemoPurchase(session.provider, services.config)) {
    services.logger.warn(
      { subscriptionId: pass.id, checkoutSessionId: session.id },
      "a demo checkout of a pass was not applied: the store takes real payments now",
    );
    return pass;
  }
  const paidAt = session.paidAt ?? now;
  const terms = planChangeTerms(pass.planId, session.planId, pass.expiresAt, paidAt);
  const [change] = await tx
    .insert(planChanges)
    .values({
      subscriptionId: pass.id,
      kind: terms.kind,
      fromPlanId: pass.planId,
      toPlanId: terms.to.id,
      amountCents: session.paidAmountCents ?? session.amountCents,
      currency: session.paidCurrency ?? session.currency,
      status: "applied",
      checkoutSessionId: session.id,
      requestedAt: session.createdAt,
      appliedAt: now,
    })
    .onConflictDoNothing({ target: planChanges.checkoutSessionId })
    .returning();
  if (!change) return pass;
  // The payment joins the pass it paid for: its own order number, on the pass's ledger.
  const charge = await recordMoney(tx, {
    ...checkoutCharge(session, orderNumberOf(change.id), now),
    kind: "charge",
    purpose: terms.kind === "pass-extend" ? "pass_extension" : "pass_to_subscription",
    planChangeId: change.id,
    subscriptionId: pass.id,
    customerEmail: pass.customerEmail ?? session.customerEmail,
  });
  if (!isPaidUp(pass.status)) {
    services.logger.error(
      { subscriptionId: pass.id, checkoutSessionId: session.id, status: pass.status },
      "a pass was paid for again after it ended: not applied, refund it",
    );
    return pass;
  }
  const changed = await applyChange(
    tx,
    services,
    pass,
    change,
    {
      expiresAt: terms.periodEndsAt,
      chargedNow: true,
      // The pass becomes the Stripe subscription its checkout started; an extension changes no reference.
      stripe:
        terms.kind === "pass-to-subscription"
          ? {
              customerId: references.stripeCustomerId ?? null,
              subscriptionId: references.stripeSubscriptionId ?? null,
            }
          : undefined,
    },
    now,
  );
  if (charge) await queueReceipt(tx, services, changed, charge);
  return changed;
}
