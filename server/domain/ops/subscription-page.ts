import { asc, desc, eq, sql } from "drizzle-orm";
import { findPlan } from "#core/plans.ts";
import { devices, outboxMessages, subscriptionEvents, vpnServers } from "#server/db/schema/index.ts";
import { demoPurchaseStaffReason, isDemoPurchase } from "#server/domain/billing/demo-purchases.ts";
import { historyEntries } from "#server/domain/billing/history.ts";
import { ledgerOfSubscriptions } from "#server/domain/billing/ledger.ts";
import { planChange } from "#server/domain/billing/plan-change.ts";
import { findSubscription, orderNumberOf } from "#server/domain/billing/self-service.ts";
import { applicableStaffActions } from "#server/domain/billing/subscription-actions.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import type { AppServices } from "#server/services.ts";

// What the staff console shows of one subscription (issue 15): the customer, plan and status, the
// status history, payments and reversals, every device ever issued, and the e-mails sent to the
// customer — kind and delivery only: the sealed message itself never leaves the outbox.

const iso = (value: Date | null) => value?.toISOString() ?? null;

export async function subscriptionPage(
  services: Pick<AppServices, "db" | "config">,
  subscriptionId: string,
  now = new Date(),
) {
  const { subscription, session } = await findSubscription(services.db, subscriptionId);
  const demoPurchase = isDemoPurchase(session.provider, services.config);
  const [history, ledger, awaiting, options, deviceRows, emails] = await Promise.all([
    services.db
      .select()
      .from(subscriptionEvents)
      .where(eq(subscriptionEvents.subscriptionId, subscription.id))
      .orderBy(desc(subscriptionEvents.id)),
    ledgerOfSubscriptions(services.db, [subscription.id]),
    planChange({ step: "awaiting", executor: services.db, subscriptionIds: [subscription.id] }),
    planChange({ step: "options", subscription, demoPurchase }),
    services.db
      .select({ device: devices, server: vpnServers })
      .from(devices)
      .leftJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
      .where(eq(devices.subscriptionId, subscription.id))
      .orderBy(asc(devices.slot), asc(devices.createdAt)),
    subscription.customerEmail
      ? services.db
          .select({
            id: outboxMessages.id,
            kind: outboxMessages.kind,
            status: outboxMessages.status,
            attempts: outboxMessages.attempts,
            createdAt: outboxMessages.createdAt,
            sentAt: outboxMessages.sentAt,
          })
          .from(outboxMessages)
          .where(sql`lower(${outboxMessages.toAddress}) = lower(${subscription.customerEmail})`)
          .orderBy(desc(outboxMessages.createdAt))
          .limit(100)
      : Promise.resolve([]),
  ]);
  // The ledger's rows of this subscription (billing/ledger.ts): every charge, credit, refund and dispute.
  const payments = historyEntries(ledger).map((entry, index) => ({
    kind: entry.what,
    orderNumber: entry.orderNumber,
    at: entry.at,
    amountCents: entry.amountCents,
    sign: entry.sign,
    currency: entry.currency,
    reference: ledger[index]!.providerReference,
  }));
  // The history is newest first: the last period end it had while paid up.
  const paidUntil = history.find((event) => isPaidUp(event.status))?.expiresAt ?? null;
  return {
    /** The staff actions that apply in its state (billing's rule; the API refuses the others). */
    actions: applicableStaffActions({ ...subscription, paidUntil, demoPurchase }, now),
    subscription: {
      id: subscription.id,
      orderNumber: orderNumberOf(subscription.id),
      customerEmail: subscription.customerEmail,
      planId: subscription.planId,
      planName: findPlan(subscription.planId)?.name ?? subscription.planId,
      recurring: findPlan(subscription.planId)?.billing === "recurring",
      status: subscription.status,
      cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
      expiresAt: subscription.expiresAt.toISOString(),
      createdAt: subscription.createdAt.toISOString(),
      deviceLimit: subscription.deviceLimit,
      provider: session.provider,
      /** Why a demo purchase on a live store only ends (null for any other). */
      demoPurchase: demoPurchase ? demoPurchaseStaffReason(subscription.expiresAt, now) : null,
      stripeCustomerId: subscription.stripeCustomerId,
      stripeSubscriptionId: subscription.stripeSubscriptionId,
    },
    history: history.map((event) => ({
      id: event.id,
      at: event.at.toISOString(),
      status: event.status,
      expiresAt: event.expiresAt.toISOString(),
      cancelAtPeriodEnd: event.cancelAtPeriodEnd,
    })),
    payments,
    /** A plan change whose Stripe invoice is not paid yet: on the ledger (in `payments`) once it is. */
    awaitingPayments: awaiting.map((entry) => ({
      kind: `Payment: plan change to ${entry.planName}`,
      orderNumber: entry.orderNumber,
      at: entry.requestedAt,
      amountCents: entry.amountCents,
      currency: entry.currency,
    })),
    /** The plans staff may move it to, with the price difference now. */
    planChanges: options,
    devices: deviceRows.map(({ device, server }) => ({
      id: device.id,
      slot: device.slot,
      name: device.name ?? `Device ${device.slot}`,
      server: server?.name ?? null,
      ipv4: device.ipv4,
      ipv6: device.ipv6,
      createdAt: device.createdAt.toISOString(),
      activatedAt: iso(device.activatedAt),
      activatedVia: device.activatedVia,
      lastHandshakeAt: iso(device.lastHandshakeAt),
      revokedAt: iso(device.revokedAt),
    })),
    emails: emails.map((email) => ({
      ...email,
      createdAt: email.createdAt.toISOString(),
      sentAt: iso(email.sentAt),
    })),
  };
}

export type SubscriptionPage = Awaited<ReturnType<typeof subscriptionPage>>;
