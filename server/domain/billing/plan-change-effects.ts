import { and, desc, eq } from "drizzle-orm";
import { findPlan } from "#core/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import { planChanges, subscriptions, type PlanChange, type Subscription } from "#server/db/schema/index.ts";
import { queuePlanChangedEmail } from "#server/domain/mail/plan-change-emails.ts";
import { fitDevicesToLimit } from "#server/domain/vpn/device-limit-changes.ts";
import type { BillingServices } from "./fulfil.ts";
import { planChangeTerms } from "./plan-change-rules.ts";
import { stripePlanIdOf } from "./stripe-plan-change.ts";
import { linkInvoicedChange } from "./awaiting-payment.ts";

// A plan change taking effect: in the demo store when asked, at Stripe when its
// webhook says so, for a pass when its checkout is paid. Callers hold the subscription row lock.

/** The change takes effect: the plan and device limit, the devices kept, the customer's e-mail. */
export async function applyChange(
  tx: Transaction,
  services: BillingServices,
  current: Subscription,
  change: PlanChange,
  effect: {
    expiresAt?: Date;
    chargedNow: boolean;
    stripe?: { customerId: string | null; subscriptionId: string | null };
  },
  now: Date,
): Promise<Subscription> {
  const plan = findPlan(change.toPlanId)!;
  const [row] = await tx
    .update(subscriptions)
    .set({
      planId: plan.id,
      planType: plan.planType,
      deviceLimit: plan.deviceLimit,
      ...(effect.expiresAt ? { expiresAt: effect.expiresAt } : {}),
      ...(effect.stripe
        ? {
            // The checkout that paid for the plan names the Stripe customer its subscription bills.
            stripeCustomerId: effect.stripe.customerId ?? current.stripeCustomerId,
            stripeSubscriptionId: current.stripeSubscriptionId ?? effect.stripe.subscriptionId,
          }
        : {}),
      updatedAt: now,
    })
    .where(eq(subscriptions.id, current.id))
    .returning();
  const revoked = await fitDevicesToLimit(tx, current.id, plan.deviceLimit, change.keepDeviceIds, now);
  await queuePlanChangedEmail(tx, services, row!, {
    kind: change.kind,
    fromPlanName: findPlan(change.fromPlanId)?.name ?? change.fromPlanId,
    toPlanName: plan.name,
    amountCents: change.amountCents,
    currency: change.currency,
    chargedNow: effect.chargedNow,
    byStaff: change.staffUserId !== null,
    revokedDevices: revoked,
  });
  return row!;
}

/**
 * Stripe's record of the subscription names another plan (our change, or one made in Stripe's
 * Dashboard): the stored plan and device limit follow it, keeping the devices the customer chose.
 * Called by the webhook with the subscription row locked.
 */
export async function applyStripePlanChange(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
  remote: { metadata?: Record<string, string> | null },
  now: Date,
): Promise<void> {
  const planId = stripePlanIdOf(remote);
  const plan = findPlan(planId);
  if (!plan || plan.billing !== "recurring" || plan.id === subscription.planId) return;
  const [pending] = await tx
    .select()
    .from(planChanges)
    .where(
      and(
        eq(planChanges.subscriptionId, subscription.id),
        eq(planChanges.toPlanId, plan.id),
        eq(planChanges.status, "pending"),
      ),
    )
    .orderBy(desc(planChanges.requestedAt))
    .limit(1);
  let change: PlanChange;
  if (pending) {
    [change] = (await tx
      .update(planChanges)
      .set({ status: "applied", appliedAt: now })
      .where(eq(planChanges.id, pending.id))
      .returning()) as [PlanChange];
  } else {
    const [previous] = await tx
      .select({ requestedAt: planChanges.requestedAt })
      .from(planChanges)
      .where(eq(planChanges.subscriptionId, subscription.id))
      .orderBy(desc(planChanges.requestedAt))
      .limit(1);
    const terms = planChangeTerms(subscription.planId, plan.id, subscription.expiresAt, now);
    [change] = (await tx
      .insert(planChanges)
      .values({
        subscriptionId: subscription.id,
        kind: terms.kind,
        fromPlanId: subscription.planId,
        toPlanId: plan.id,
        amountCents: terms.amountCents,
        status: "applied",
        requestedAt: now,
        appliedAt: now,
      })
      .returning()) as [PlanChange];
    // Made in Stripe's Dashboard, its invoice may have been paid before this event arrived.
    await linkInvoicedChange(tx, subscription.id, change.id, previous?.requestedAt ?? null);
  }
  const chargedNow = findPlan(change.fromPlanId)?.interval !== plan.interval;
  await applyChange(tx, services, subscription, change, { chargedNow }, now);
}
