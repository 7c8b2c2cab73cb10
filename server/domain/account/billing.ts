import { refundUnderGuarantee } from "#server/domain/billing/guarantee.ts";
import { billingHistory, type BillingHistoryEntry } from "#server/domain/billing/history.ts";
import {
  billingPortalUrl,
  cancelAtPeriodEnd,
  receipt,
  resumeSubscription,
  type Receipt,
} from "#server/domain/billing/self-service.ts";
import { ownedSubscription, ownedSubscriptionIds, type AccountServices } from "./account.ts";
import type { Customer } from "./customer-auth.ts";

// The account page's billing actions: billing's self-service functions, each behind
// the same owner check as the device actions, so someone else's subscription is "not found".

/** A plain receipt of one plan bought on the built-in checkout. */
export const receiptPath = (subscriptionId: string) => `/account/receipts/${subscriptionId}`;

/** Where "Manage payment method and invoices" goes without Stripe: the customer's payment history. */
export const BILLING_HISTORY_PATH = "/account/billing";

export async function cancelAccountSubscription(
  services: AccountServices,
  customer: Customer,
  subscriptionId: string,
  now = new Date(),
): Promise<{ subscriptionId: string }> {
  await ownedSubscription(services.db, customer, subscriptionId);
  await cancelAtPeriodEnd(services, subscriptionId, now);
  return { subscriptionId };
}

export async function resumeAccountSubscription(
  services: AccountServices,
  customer: Customer,
  subscriptionId: string,
  now = new Date(),
): Promise<{ subscriptionId: string }> {
  await ownedSubscription(services.db, customer, subscriptionId);
  await resumeSubscription(services, subscriptionId, now);
  return { subscriptionId };
}

/**
 * "Refund this purchase" (the 7-day guarantee, decision 136): the customer's own subscription
 * only (someone else's is "not found"); answers what was given back.
 */
export async function refundAccountSubscription(
  services: AccountServices,
  customer: Customer,
  subscriptionId: string,
  now = new Date(),
): Promise<{ subscriptionId: string; status: string }> {
  await ownedSubscription(services.db, customer, subscriptionId);
  const refunded = await refundUnderGuarantee(services, customer, subscriptionId, now);
  return { subscriptionId, status: refunded.status };
}

/** The Stripe Customer Portal when Stripe bills this subscription; otherwise the payment history page. */
export async function accountBillingUrl(
  services: AccountServices,
  customer: Customer,
  subscriptionId: string,
): Promise<{ url: string }> {
  await ownedSubscription(services.db, customer, subscriptionId);
  const portal = await billingPortalUrl(services, subscriptionId, `${services.config.PUBLIC_URL}/account`);
  return { url: portal ?? BILLING_HISTORY_PATH };
}

export async function accountReceipt(
  services: Pick<AccountServices, "db">,
  customer: Customer,
  subscriptionId: string,
  orderNumber?: string,
): Promise<Receipt> {
  await ownedSubscription(services.db, customer, subscriptionId);
  return receipt(services, subscriptionId, orderNumber);
}

/** Every payment, refund and dispute of the customer's own plans, newest first. */
export async function accountBillingHistory(
  services: Pick<AccountServices, "db">,
  customer: Customer,
): Promise<BillingHistoryEntry[]> {
  return billingHistory(services.db, await ownedSubscriptionIds(services.db, customer));
}
