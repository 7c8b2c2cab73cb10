import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { findPlan, PLAN_IDS, PLANS, type Plan } from "#core/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import { planChanges, subscriptions, type PlanChange, type Subscription } from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { conflict, DomainError } from "#server/domain/errors.ts";
import { recordStaffAction, staffReasonSchema } from "#server/domain/ops/audit.ts";
import { checkKeepChoice } from "#server/domain/vpn/device-limit-changes.ts";
import { liveDevices } from "#server/domain/vpn/devices.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import {
  demoPurchaseRefused,
  demoPurchaseStaffReason,
  isDemoPurchase,
  refuseDemoPurchase,
} from "./demo-purchases.ts";
import { billingUnavailable, providerUnavailable, subscriptionEnded } from "./errors.ts";
import type { BillingServices } from "./fulfil.ts";
import { planChangeTargets, planChangeTerms, type PlanChangeTerms } from "./plan-change-rules.ts";
import { findSubscription } from "./self-service.ts";
import { orderNumberOf, recordCharge, recordMoney } from "./ledger.ts";
import { actionNotApplicable } from "./subscription-actions.ts";
import { applyChange } from "./plan-change-effects.ts";
import { changeStripePlan } from "./stripe-plan-change.ts";

// Moving a subscription to another plan: upgrade, downgrade, monthly ↔ yearly.
// The built-in checkout's subscriptions change at once; Stripe's are changed at Stripe with
// proration and take effect when Stripe's `customer.subscription.updated` arrives (webhook.ts
// calls plan-change-effects.ts). Callers have checked who may change the subscription.

const target = { subscriptionId: z.uuid(), planId: z.enum(PLAN_IDS) };
export const planChangeQuoteSchema = z.object(target).strict();
export const planChangeSchema = z
  .object({ ...target, keepDeviceIds: z.array(z.uuid()).max(3).optional() })
  .strict();
export const staffPlanChangeSchema = planChangeSchema.extend({ reason: staffReasonSchema }).strict();
export type PlanChangeInput = z.infer<typeof planChangeSchema>;

export interface PlanChangeQuote {
  subscriptionId: string;
  kind: PlanChangeTerms["kind"];
  from: { planId: string; name: string; price: string; deviceLimit: number };
  to: { planId: string; name: string; price: string; deviceLimit: number };
  amountCents: number;
  currency: "usd";
  chargedNow: boolean;
  periodEndsAt: string;
  /** Paid through a checkout (`startPassCheckout`), not changed in place. */
  throughCheckout: boolean;
  /** The live devices; when more than the new limit, `keepCount` of them must be chosen. */
  devices: { id: string; name: string; slot: number }[];
  keepCount: number | null;
}

export interface PlanChangeResult {
  subscriptionId: string;
  planId: string;
  /** `pending`: asked of Stripe, applied when Stripe confirms it. */
  status: "applied" | "pending";
  deviceLimit: number;
  expiresAt: string;
}

export type PlanChangeActor = { staff: SignedInStaff; reason: string } | null;

const planSummary = (plan: Plan) => ({
  planId: plan.id,
  name: plan.name,
  price: `${plan.price}${plan.period === "one-time" ? "" : plan.period}`,
  deviceLimit: plan.deviceLimit,
});

/**
 * The plans staff may move a subscription to, each with its terms now. None for a pass: only its
 * holder's own checkout changes it (staff extend it instead); none for a demo purchase.
 */
export function planChangeOptions(subscription: Subscription, now: Date, demoPurchase = false) {
  if (!isUsable(subscription, now) || findPlan(subscription.planId)?.billing !== "recurring" || demoPurchase)
    return [];
  return planChangeTargets(subscription.planId, PLANS)
    .filter((plan) => plan.billing === "recurring" && plan.id !== subscription.planId)
    .map((plan) => {
      const terms = planChangeTerms(subscription.planId, plan.id, subscription.expiresAt, now);
      return {
        ...planSummary(plan),
        kind: terms.kind,
        amountCents: terms.amountCents,
        chargedNow: terms.chargedNow,
      };
    });
}

function refuseUnchangeable(subscription: Subscription, now: Date) {
  if (!isUsable(subscription, now)) throw subscriptionEnded(endedStatusOf(subscription));
  if (subscription.status === "past_due")
    throw conflict("The last payment of this plan failed: update the payment method before changing plan.");
}

/** What moving to `planId` would cost and which devices it keeps, for the confirmation screen. */
export async function quotePlanChange(
  services: Pick<BillingServices, "db" | "config">,
  input: z.infer<typeof planChangeQuoteSchema>,
  now = new Date(),
): Promise<PlanChangeQuote> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  refuseUnchangeable(subscription, now);
  refuseDemoPurchase(services.config, provider, subscription, now);
  const terms = planChangeTerms(subscription.planId, input.planId, subscription.expiresAt, now);
  const live = await liveDevices(services.db, subscription.id);
  return {
    subscriptionId: subscription.id,
    kind: terms.kind,
    from: planSummary(terms.from),
    to: planSummary(terms.to),
    amountCents: terms.amountCents,
    currency: "usd",
    chargedNow: terms.chargedNow,
    periodEndsAt: terms.periodEndsAt.toISOString(),
    throughCheckout: terms.throughCheckout,
    devices: live.map((device) => ({
      id: device.id,
      name: device.name ?? `Device ${device.slot}`,
      slot: device.slot,
    })),
    keepCount: live.length > terms.to.deviceLimit ? terms.to.deviceLimit : null,
  };
}

/**
 * Changes the plan of a recurring subscription. A downgrade below the live devices needs
 * `keepDeviceIds`; the others are revoked when the change takes effect. Staff changes are audited.
 */
export async function changePlan(
  services: BillingServices,
  input: PlanChangeInput,
  actor: PlanChangeActor,
  now = new Date(),
): Promise<PlanChangeResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  refuseUnchangeable(subscription, now);
  if (isDemoPurchase(provider, services.config))
    throw actor
      ? actionNotApplicable(demoPurchaseStaffReason(subscription.expiresAt, now))
      : demoPurchaseRefused(subscription.expiresAt, now);
  const terms = planChangeTerms(subscription.planId, input.planId, subscription.expiresAt, now);
  if (terms.throughCheckout)
    throw conflict("An Unlock Pass changes through a checkout: use the pass checkout instead.");
  checkKeepChoice(await liveDevices(services.db, subscription.id), terms.to.deviceLimit, input.keepDeviceIds);
  const request = {
    subscriptionId: subscription.id,
    kind: terms.kind,
    fromPlanId: terms.from.id,
    toPlanId: terms.to.id,
    keepDeviceIds: input.keepDeviceIds ?? null,
    amountCents: terms.amountCents,
    staffUserId: actor?.staff.id ?? null,
    requestedAt: now,
  };
  if (provider === "test") {
    const changed = await services.db.transaction(async (tx) => {
      const current = await lockChangeable(tx, subscription, now);
      const [change] = await tx
        .insert(planChanges)
        .values({ ...request, status: "applied", appliedAt: now })
        .returning();
      const row = await applyChange(
        tx,
        services,
        current,
        change!,
        { expiresAt: terms.periodEndsAt, chargedNow: terms.chargedNow },
        now,
      );
      await recordDemoPlanChangeMoney(tx, services, row, change!, now);
      await auditChange(tx, actor, change!, "applied", now);
      return row;
    });
    services.mail.wake();
    return resultOf(changed, "applied");
  }
  if (!subscription.stripeSubscriptionId || !services.config.STRIPE_SECRET_KEY) throw billingUnavailable();
  // Recorded first, so the webhook that may overtake Stripe's answer finds the devices to keep.
  const change = await services.db.transaction(async (tx) => {
    await lockChangeable(tx, subscription, now);
    await tx
      .update(planChanges)
      .set({ status: "superseded" })
      .where(and(eq(planChanges.subscriptionId, subscription.id), eq(planChanges.status, "pending")));
    const [row] = await tx.insert(planChanges).values(request).returning();
    return row!;
  });
  try {
    await changeStripePlan(services.config, subscription.stripeSubscriptionId, terms.to, now);
  } catch (error) {
    await services.db
      .delete(planChanges)
      .where(and(eq(planChanges.id, change.id), eq(planChanges.status, "pending")));
    if (error instanceof DomainError) throw error;
    services.logger.error(
      { err: error, subscriptionId: subscription.id },
      "stripe: changing the plan failed",
    );
    throw providerUnavailable();
  }
  if (actor) await services.db.transaction((tx) => auditChange(tx, actor, change, "pending", now));
  const { subscription: latest } = await findSubscription(services.db, subscription.id);
  return resultOf(latest, latest.planId === terms.to.id ? "applied" : "pending");
}

/**
 * The built-in checkout settles a plan change at once: the difference is charged (with a receipt)
 * or credited. Stripe's changes are charged or credited on Stripe's invoices (webhook-events.ts).
 */
async function recordDemoPlanChangeMoney(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
  change: PlanChange,
  now: Date,
) {
  if (change.amountCents === 0) return;
  const movement = {
    key: `plan-change:${change.id}`,
    purpose: "plan_change" as const,
    orderNumber: orderNumberOf(change.id),
    amountCents: change.amountCents,
    currency: change.currency,
    planChangeId: change.id,
    planId: change.toPlanId,
    provider: "test" as const,
    occurredAt: now,
  };
  if (change.amountCents > 0) await recordCharge(tx, services, subscription, movement);
  else
    await recordMoney(tx, {
      ...movement,
      kind: "credit",
      subscriptionId: subscription.id,
      customerEmail: subscription.customerEmail,
    });
}

async function lockChangeable(tx: Transaction, subscription: Subscription, now: Date) {
  const [current] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, subscription.id))
    .for("update");
  if (!current) throw subscriptionEnded("gone");
  refuseUnchangeable(current, now);
  if (current.planId !== subscription.planId)
    throw conflict("This subscription's plan changed meanwhile: look again.");
  return current;
}

function auditChange(tx: Transaction, actor: PlanChangeActor, change: PlanChange, status: string, now: Date) {
  if (!actor) return Promise.resolve();
  return recordStaffAction(
    tx,
    actor.staff,
    {
      action: "subscription.change-plan",
      targetType: "subscription",
      targetId: change.subscriptionId,
      reason: actor.reason,
      details: {
        from: change.fromPlanId,
        to: change.toPlanId,
        kind: change.kind,
        amountCents: change.amountCents,
        keepDeviceIds: change.keepDeviceIds,
        status,
      },
    },
    now,
  );
}

const resultOf = (row: Subscription, status: PlanChangeResult["status"]): PlanChangeResult => ({
  subscriptionId: row.id,
  planId: row.planId,
  status,
  deviceLimit: row.deviceLimit,
  expiresAt: row.expiresAt.toISOString(),
});
