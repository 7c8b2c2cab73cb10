import { z } from "zod";
import { formatMoney } from "#core/format.ts";
import { findPlan, PLAN_TYPE_LABELS } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription } from "#server/db/schema/index.ts";
import type { DeviceChange, EmailContent, EmailData, EmailRequest } from "./email-data.ts";
import type { EmailSite } from "./templates/layout.tsx";

// The e-mails a customer gets about their subscription. Each queue function is called inside
// the transaction of the event that causes it, so the e-mail goes exactly when that commits;
// call `services.mail.wake()` after the commit. The config e-mail, which carries the device's
// secrets, is in config-email.ts.

export interface CustomerEmailDeps {
  config: EmailSite;
  mail: { enqueue(executor: Executor, email: EmailRequest): Promise<string> };
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

function planPeriod(
  subscription: CustomerSubscription,
  date = subscription.expiresAt,
): EmailData<"renewal-reminder"> {
  const plan = findPlan(subscription.planId);
  const price = plan ? `${plan.price}${plan.period === "one-time" ? "" : plan.period}` : "the plan's price";
  return { planName: planName(subscription), price, date };
}

/** Queues it when the customer has an address (replies go to support); null when nothing was queued. */
export async function queueToCustomer(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: Pick<Subscription, "customerEmail">,
  email: EmailContent,
): Promise<string | null> {
  const to = customerAddress(subscription);
  if (!to) return null;
  return deps.mail.enqueue(tx, { ...email, to, replyTo: deps.config.SUPPORT_EMAIL });
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
  return queueToCustomer(tx, deps, subscription, {
    template: "receipt",
    data: {
      planName: planName(subscription),
      amount: formatMoney(payment.amountCents, payment.currency),
      orderNumber: payment.orderNumber,
      paidAt: payment.paidAt,
      oneTime: subscription.planType === "unlock",
      endsAt: subscription.expiresAt,
    },
  });
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
  return queueToCustomer(tx, deps, subscription, {
    template: `device-${change}`,
    data: {
      deviceName: device.name ?? `Device ${device.slot}`,
      planName: planName(subscription),
      at: now,
      location: details.location,
    },
  });
}

type PeriodNotice =
  "renewal-reminder" | "pass-ending" | "payment-failed" | "subscription-expired" | "subscription-resumed";

/** A notice about the subscription's current period: it renews, ends, could not be paid, ended. */
export function queuePeriodEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  template: PeriodNotice,
) {
  return queueToCustomer(tx, deps, subscription, { template, data: planPeriod(subscription) });
}

/** The subscription will not renew: its access ends at `expiresAt` (or ended already, when that is past). */
export function queueCancelledEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  now = new Date(),
) {
  const period = planPeriod(subscription);
  return queueToCustomer(tx, deps, subscription, {
    template: "subscription-cancelled",
    data: { ...period, endedAlready: period.date <= now },
  });
}

/** What a refund or dispute took back, as the customer's e-mail states it. */
export interface ReversedPayment {
  kind: "refund" | "dispute";
  orderNumber: string;
  amountCents: number;
  currency: string;
  at: Date;
}

/** The payment went back: how much, that the plan ended (`expiresAt`) and will not renew, how to buy again. */
export function queueRefundedEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: CustomerSubscription,
  reversal: ReversedPayment,
) {
  return queueToCustomer(tx, deps, subscription, {
    template: "subscription-refunded",
    data: {
      kind: reversal.kind,
      planName: planName(subscription),
      orderNumber: reversal.orderNumber,
      amount: formatMoney(reversal.amountCents, reversal.currency),
      at: reversal.at,
      endedAt: subscription.expiresAt,
    },
  });
}
