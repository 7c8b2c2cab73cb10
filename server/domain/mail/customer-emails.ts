import { z } from "zod";
import { findPlan, PLAN_TYPE_LABELS } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription } from "#server/db/schema/index.ts";
import type { OutgoingEmail } from "./outbox.ts";
import type { RenderedEmail } from "./render.ts";
import { deviceNoticeEmail, type DeviceChange } from "./templates/device-notice.tsx";
import type { EmailSite } from "./templates/layout.tsx";
import { receiptEmail } from "./templates/receipt.tsx";
import {
  cancelledEmail,
  expiredEmail,
  passEndingEmail,
  paymentFailedEmail,
  renewalReminderEmail,
  type PlanPeriod,
} from "./templates/subscription-notices.tsx";

// The e-mails a customer gets about their subscription. Each queue function is called inside
// the transaction of the event that causes it, so the e-mail goes exactly when that commits;
// call `services.mail.wake()` after the commit. The config e-mail is the VPN area's
// (server/domain/vpn/config-email.ts): it carries the device's secrets.

export interface CustomerEmailDeps {
  config: EmailSite;
  mail: { enqueue(executor: Executor, email: OutgoingEmail): Promise<string> };
}

export type CustomerSubscription = Pick<Subscription, "customerEmail" | "planId" | "planType" | "expiresAt">;

const emailAddress = z.email();

/** The subscription's customer address, or null when it has none that can receive mail. */
export function customerAddress(subscription: Pick<Subscription, "customerEmail">): string | null {
  return emailAddress.safeParse(subscription.customerEmail).success ? subscription.customerEmail : null;
}

export function planName(subscription: Pick<Subscription, "planId" | "planType">): string {
  return findPlan(subscription.planId)?.name ?? PLAN_TYPE_LABELS[subscription.planType];
}

function planPeriod(subscription: CustomerSubscription, date = subscription.expiresAt): PlanPeriod {
  const plan = findPlan(subscription.planId);
  const price = plan ? `${plan.price}${plan.period === "one-time" ? "" : plan.period}` : "the plan's price";
  return { planName: planName(subscription), price, date };
}

export function formatAmount(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
      cents / 100,
    );
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** Renders (only when the customer has an address) and queues; null when nothing was queued. */
async function queueToCustomer(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: Pick<Subscription, "customerEmail">,
  kind: string,
  render: () => Promise<RenderedEmail>,
): Promise<string | null> {
  const to = customerAddress(subscription);
  if (!to) return null;
  return deps.mail.enqueue(tx, { kind, to, replyTo: deps.config.SUPPORT_EMAIL, ...(await render()) });
}

/** What the receipt says about the payment (billing's `receipt` computes the same for the account page). */
export interface PaymentReceipt {
  orderNumber: string;
  amountCents: number;
  currency: string;
  paidAt: Date;
}

export function queueReceiptEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  payment: PaymentReceipt,
) {
  return queueToCustomer(tx, deps, subscription, "receipt", () =>
    receiptEmail(deps.config, {
      planName: planName(subscription),
      amount: formatAmount(payment.amountCents, payment.currency),
      orderNumber: payment.orderNumber,
      paidAt: payment.paidAt,
      oneTime: subscription.planType === "unlock",
      endsAt: subscription.expiresAt,
    }),
  );
}

/**
 * After a device was revoked, given new keys or moved (a device added gets its config e-mail):
 * "was this you?", or for a move staff made, why. `location`: where a moved device is now.
 */
export function queueDeviceNoticeEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  device: Pick<Device, "name" | "slot">,
  change: DeviceChange,
  now = new Date(),
  details: { location?: string } = {},
) {
  return queueToCustomer(tx, deps, subscription, `device-${change}`, () =>
    deviceNoticeEmail(deps.config, {
      change,
      deviceName: device.name ?? `Device ${device.slot}`,
      planName: planName(subscription),
      at: now,
      location: details.location,
    }),
  );
}

export function queueRenewalReminderEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
) {
  return queueToCustomer(tx, deps, subscription, "renewal-reminder", () =>
    renewalReminderEmail(deps.config, planPeriod(subscription)),
  );
}

export function queuePassEndingEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
) {
  return queueToCustomer(tx, deps, subscription, "pass-ending", () =>
    passEndingEmail(deps.config, planPeriod(subscription)),
  );
}

export function queuePaymentFailedEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
) {
  return queueToCustomer(tx, deps, subscription, "payment-failed", () =>
    paymentFailedEmail(deps.config, planPeriod(subscription)),
  );
}

/** The subscription will not renew: its access ends at `expiresAt` (or ended already, when that is past). */
export function queueCancelledEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  now = new Date(),
) {
  return queueToCustomer(tx, deps, subscription, "subscription-cancelled", () =>
    cancelledEmail(deps.config, planPeriod(subscription), now),
  );
}

export function queueExpiredEmail(tx: Executor, deps: CustomerEmailDeps, subscription: CustomerSubscription) {
  return queueToCustomer(tx, deps, subscription, "subscription-expired", () =>
    expiredEmail(deps.config, planPeriod(subscription)),
  );
}
