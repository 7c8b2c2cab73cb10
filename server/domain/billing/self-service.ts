import { eq, inArray, and } from "drizzle-orm";
import type Stripe from "stripe";
import { findPlan } from "#core/plans.ts";
import type { Executor, Transaction } from "#server/db/client.ts";
import { checkoutSessions, subscriptions, type Subscription } from "#server/db/schema/index.ts";
import { invalidInput } from "#server/domain/errors.ts";
import { queueCancelledEmail, queuePeriodEmail } from "#server/domain/mail/customer-emails.ts";
import { endedStatusOf, isUsable, USABLE_STATUSES } from "#server/domain/vpn/usable.ts";
import {
  billingUnavailable,
  passDoesNotRenew,
  receiptNotFound,
  providerUnavailable,
  subscriptionEnded,
  subscriptionNotFound,
} from "./errors.ts";
import { refuseDemoPurchase } from "./demo-purchases.ts";
import type { BillingServices } from "./fulfil.ts";
import { ledgerOfSubscriptions, orderNumberOf, parseOrderNumber } from "./ledger.ts";
import { stripeClient, subscriptionChangesFrom } from "./stripe-provider.ts";

// What a customer does with their own plan: cancel at the period end, resume, reach Stripe's
// Customer Portal, read a receipt. Callers have already checked that the subscription is theirs.

/**
 * Stops a recurring plan from renewing; its configs keep working until the paid period ends
 * (the expiry job revokes them then). Stripe subscriptions are changed at Stripe first, then
 * recorded as Stripe answered; the built-in checkout's are recorded here alone. Cancelling twice
 * changes nothing.
 */
export function cancelAtPeriodEnd(
  services: BillingServices,
  subscriptionId: string,
  now = new Date(),
  alongside?: AlongsideChange,
) {
  return setCancelAtPeriodEnd(services, subscriptionId, true, now, alongside);
}

/** What a caller writes in the change's own transaction, such as the staff audit entry. */
export type AlongsideChange = (tx: Transaction, changed: Subscription) => Promise<void>;

/** Undoes `cancelAtPeriodEnd` before the period ends: the plan renews again. An ended plan stays ended. */
export function resumeSubscription(
  services: BillingServices,
  subscriptionId: string,
  now = new Date(),
  alongside?: AlongsideChange,
) {
  return setCancelAtPeriodEnd(services, subscriptionId, false, now, alongside);
}

async function setCancelAtPeriodEnd(
  services: BillingServices,
  subscriptionId: string,
  cancel: boolean,
  now: Date,
  alongside?: AlongsideChange,
): Promise<Subscription> {
  const { subscription, provider } = await findSubscription(services.db, subscriptionId);
  if (findPlan(subscription.planId)?.billing !== "recurring") throw passDoesNotRenew(subscription.expiresAt);
  if (!isUsable(subscription, now)) throw subscriptionEnded(endedStatusOf(subscription));
  if (subscription.cancelAtPeriodEnd === cancel) return subscription;
  if (!cancel) refuseDemoPurchase(services.config, provider, subscription, now);
  if (provider === "test")
    return record(services, subscription, { cancelAtPeriodEnd: cancel }, now, alongside);
  // A Stripe plan whose subscription id has not arrived yet, or a store whose Stripe key was
  // removed, cannot be changed here: recording it only locally would leave Stripe charging.
  if (!subscription.stripeSubscriptionId || !services.config.STRIPE_SECRET_KEY) throw billingUnavailable();
  let remote: Stripe.Subscription;
  try {
    remote = await (
      await stripeClient(services.config)
    ).subscriptions.update(subscription.stripeSubscriptionId, {
      cancel_at_period_end: cancel,
    });
  } catch (error) {
    services.logger.error(
      { err: error, subscriptionId: subscription.id },
      `stripe: ${cancel ? "cancelling" : "resuming"} a subscription failed`,
    );
    throw providerUnavailable();
  }
  return record(services, subscription, subscriptionChangesFrom(subscription, remote), now, alongside);
}

/**
 * Writes the change unless the subscription ended meanwhile (a refund or dispute wins). The row
 * is locked first, so the "cancelled" (or "resumed") e-mail goes once whether this or Stripe's
 * webhook of the same change (which compares with the locked row too) records it first.
 */
async function record(
  services: BillingServices,
  subscription: Subscription,
  changes: Partial<Pick<Subscription, "cancelAtPeriodEnd" | "status" | "expiresAt">>,
  now: Date,
  alongside?: AlongsideChange,
): Promise<Subscription> {
  const updated = await services.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.id, subscription.id), inArray(subscriptions.status, [...USABLE_STATUSES])))
      .for("update");
    if (!current) return undefined;
    const [row] = await tx
      .update(subscriptions)
      .set({ ...changes, updatedAt: now })
      .where(eq(subscriptions.id, current.id))
      .returning();
    if (row!.cancelAtPeriodEnd && !current.cancelAtPeriodEnd)
      await queueCancelledEmail(tx, services, row!, now);
    if (!row!.cancelAtPeriodEnd && current.cancelAtPeriodEnd)
      await queuePeriodEmail(tx, services, row!, "subscription-resumed");
    await alongside?.(tx, row!);
    return row;
  });
  services.mail.wake();
  if (updated) return updated;
  const { subscription: ended } = await findSubscription(services.db, subscription.id);
  throw subscriptionEnded(endedStatusOf(ended));
}

/**
 * A Stripe Customer Portal session for the subscription's customer (card, invoices, receipts),
 * returning to `returnUrl` on this store. Undefined without Stripe or for a plan bought on the
 * built-in checkout: the receipt below stands in for it there.
 */
export async function billingPortalUrl(
  services: BillingServices,
  subscriptionId: string,
  returnUrl: string,
): Promise<string | undefined> {
  const { subscription } = await findSubscription(services.db, subscriptionId);
  if (!services.config.STRIPE_SECRET_KEY || !subscription.stripeCustomerId) return undefined;
  const returnTo = storeUrl(services.config.PUBLIC_URL, returnUrl);
  try {
    const session = await (
      await stripeClient(services.config)
    ).billingPortal.sessions.create({
      customer: subscription.stripeCustomerId,
      return_url: returnTo,
    });
    return session.url;
  } catch (error) {
    services.logger.error(
      { err: error, subscriptionId: subscription.id },
      "stripe: creating a billing portal session failed",
    );
    throw providerUnavailable();
  }
}

/** A path or a URL on this store, made absolute; anywhere else is refused (no open redirect). */
function storeUrl(publicUrl: string, returnUrl: string): string {
  const base = new URL(publicUrl);
  let url: URL;
  try {
    url = new URL(returnUrl, base);
  } catch {
    throw invalidInput("The return address is not a valid URL.");
  }
  if (url.origin !== base.origin) throw invalidInput("The return address must be on this store.");
  return url.toString();
}

export interface Receipt {
  /** Short and stable, from the subscription's id; never the checkout session id (that opens the success page). */
  orderNumber: string;
  planName: string;
  /** What was charged, in the smallest unit of `currency` (lower case, as providers report it). */
  amountCents: number;
  currency: string;
  paidAt: Date;
  customerEmail: string | null;
}

/**
 * The plain receipt of one charge of the subscription, from the ledger: the order named, else the
 * payment that bought it.
 */
export async function receipt(
  services: Pick<BillingServices, "db">,
  subscriptionId: string,
  orderNumber?: string,
): Promise<Receipt> {
  const { subscription, session } = await findSubscription(services.db, subscriptionId);
  const charges = (await ledgerOfSubscriptions(services.db, [subscription.id])).filter(
    (row) => row.kind === "charge",
  );
  const wanted = orderNumber === undefined ? orderNumberOf(subscription.id) : parseOrderNumber(orderNumber);
  const charge = charges.find((row) => row.orderNumber === wanted);
  if (!charge) throw receiptNotFound();
  return {
    orderNumber: charge.orderNumber,
    planName: findPlan(charge.planId ?? subscription.planId)?.name ?? subscription.planId,
    amountCents: charge.amountCents,
    currency: charge.currency,
    paidAt: charge.occurredAt,
    customerEmail: charge.customerEmail ?? subscription.customerEmail ?? session.customerEmail,
  };
}

export { orderNumberOf };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findSubscription(db: Executor, subscriptionId: string) {
  // Not a uuid: PostgreSQL would refuse the comparison with an error, so answer "not found" first.
  if (!UUID.test(subscriptionId)) throw subscriptionNotFound();
  const [row] = await db
    .select({ subscription: subscriptions, session: checkoutSessions })
    .from(subscriptions)
    .innerJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
    .where(eq(subscriptions.id, subscriptionId));
  if (!row) throw subscriptionNotFound();
  return { ...row, provider: row.session.provider };
}
