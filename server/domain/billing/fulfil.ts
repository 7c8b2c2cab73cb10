import { eq } from "drizzle-orm";
import { findPlan } from "#core/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import {
  checkoutSessions,
  subscriptions,
  type CheckoutSession,
  type Subscription,
} from "#server/db/schema/index.ts";
import { ensureFirstDevice, type IssuedDevice } from "#server/domain/vpn/devices.ts";
import { isUsable } from "#server/domain/vpn/usable.ts";
import type { AppServices } from "#server/services.ts";
import { planChange } from "./plan-change.ts";
import { applyHeldReversals } from "./held-reversals.ts";
import { checkoutCharge, orderNumberOf, queueReceipt, recordMoney } from "./ledger.ts";
import { DAY_MS } from "#server/domain/time.ts";

export type BillingServices = Pick<AppServices, "config" | "db" | "logger" | "sealer" | "mail">;

export interface StripeReferences {
  stripeCustomerId?: string | null;
  stripeSubscriptionId?: string | null;
}

/**
 * The one fulfilment path (the Stripe webhook, the built-in checkout and verify-payment all
 * come here): a paid checkout session becomes a subscription, exactly once, with its receipt
 * e-mail and its first device and config e-mail from the VPN area. The unique `subscriptions.checkout_session_id`
 * decides races: a concurrent insert of the same session waits for the winner's commit, then
 * does nothing and reads the winner's row. A refund or dispute that arrived before the payment
 * ends the new subscription before it gets a device (reversals.ts). Repeats make sure a usable
 * subscription has slot 1 (it is pending while no VPN server has room) and fill in Stripe
 * references learnt later.
 *
 * `checkout` is the session's id, or its row when the caller read it as paid already (a paid
 * session never changes again, so verify-payment does not read it twice). Undefined when the
 * session is unknown or not paid. Call `services.mail.wake()` after the transaction commits.
 */
export async function fulfilCheckout(
  tx: Transaction,
  services: BillingServices,
  checkout: string | CheckoutSession,
  references: StripeReferences = {},
  now = new Date(),
): Promise<Fulfilment | undefined> {
  const session = typeof checkout === "string" ? await findSession(tx, checkout) : checkout;
  if (session?.status !== "paid") return undefined;
  // A pass's own checkout from /account changes that pass; it creates no second subscription.
  if (session.renewsSubscriptionId) {
    const renewed = await planChange({ step: "pass-paid", services, tx, session, references }, now);
    return renewed && { subscription: renewed };
  }
  const plan = findPlan(session.planId);
  if (!plan) throw new Error(`Checkout session ${session.id} names an unknown plan`);
  const [created] = await tx
    .insert(subscriptions)
    .values({
      planId: plan.id,
      planType: plan.planType,
      deviceLimit: plan.deviceLimit,
      customerEmail: session.customerEmail,
      expiresAt: new Date((session.paidAt ?? now).getTime() + plan.accessDays * DAY_MS),
      checkoutSessionId: session.id,
      stripeCustomerId: references.stripeCustomerId ?? null,
      stripeSubscriptionId: references.stripeSubscriptionId ?? null,
    })
    .onConflictDoNothing({ target: subscriptions.checkoutSessionId })
    .returning();
  let subscription = created ?? (await withReferences(tx, session.id, references));
  if (created) {
    const charge = await recordMoney(tx, {
      ...checkoutCharge(session, orderNumberOf(created.id), now),
      kind: "charge",
      subscriptionId: created.id,
    });
    if (session.provider === "stripe")
      subscription = await applyHeldReversals(tx, services, created, session.paymentReference, now);
    // A refund or dispute that came first ended it: the money is recorded, no receipt is sent.
    if (charge && isUsable(subscription, now)) await queueReceipt(tx, services, subscription, charge);
  }
  if (!isUsable(subscription, now)) return { subscription };
  const firstDevice = await ensureFirstDevice(tx, services, subscription, {
    newSubscription: created !== undefined,
  });
  const issued =
    created && firstDevice?.server ? { device: firstDevice.device, server: firstDevice.server } : undefined;
  return { subscription, newSubscriptionDevice: issued };
}

export interface Fulfilment {
  subscription: Subscription;
  /** Slot 1 and its server when this call created the subscription: then its one and only device. */
  newSubscriptionDevice?: IssuedDevice;
}

async function findSession(tx: Transaction, id: string): Promise<CheckoutSession | undefined> {
  const [session] = await tx.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return session;
}

/** The session's existing subscription, locked, with the Stripe references it lacked filled in. */
async function withReferences(
  tx: Transaction,
  checkoutSessionId: string,
  references: StripeReferences,
): Promise<Subscription> {
  const [existing] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, checkoutSessionId))
    .for("update");
  if (!existing) throw new Error(`Subscription of checkout session ${checkoutSessionId} vanished`);
  const missing =
    (references.stripeSubscriptionId && !existing.stripeSubscriptionId) ||
    (references.stripeCustomerId && !existing.stripeCustomerId);
  if (!missing) return existing;
  const [updated] = await tx
    .update(subscriptions)
    .set({
      stripeSubscriptionId: existing.stripeSubscriptionId ?? references.stripeSubscriptionId ?? null,
      stripeCustomerId: existing.stripeCustomerId ?? references.stripeCustomerId ?? null,
      updatedAt: new Date(),
    })
    .where(eq(subscriptions.id, existing.id))
    .returning();
  return updated!;
}

/** `fulfilCheckout` in a transaction of its own (the built-in checkout's pay action). */
export async function fulfil(
  services: BillingServices,
  checkoutSessionId: string,
): Promise<Subscription | undefined> {
  const fulfilment = await services.db.transaction((tx) => fulfilCheckout(tx, services, checkoutSessionId));
  services.mail.wake();
  return fulfilment?.subscription;
}
