import { and, desc, eq, gte, inArray, isNull, ne, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { z } from "zod";
import {
  invoicedAtOnce,
  planChangeRefusal,
  planChangeTargets,
  planChangeTerms,
  type PlanChangeTerms,
} from "#core/plan-change-terms.ts";
import { findPlan, PLAN_IDS, PLANS, type Plan } from "#core/plans.ts";
import type { Executor, Transaction } from "#server/db/client.ts";
import {
  ledgerEntries,
  planChanges,
  subscriptions,
  type CheckoutSession,
  type PlanChange,
  type Subscription,
} from "#server/db/schema/index.ts";
import { ownedSubscription } from "#server/domain/account/account.ts";
import type { Customer } from "#server/domain/account/customer-auth.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { conflict, DomainError, invalidInput } from "#server/domain/errors.ts";
import { queuePlanChangedEmail } from "#server/domain/mail/plan-change-emails.ts";
import { recordStaffAction, staffReasonSchema } from "#server/domain/ops/audit.ts";
import { checkKeepChoice, fitDevicesToLimit } from "#server/domain/vpn/device-limit-changes.ts";
import { liveDevices } from "#server/domain/vpn/devices.ts";
import { endedStatusOf, isPaidUp, isUsable } from "#server/domain/vpn/usable.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { checkoutProvider } from "./checkout.ts";
import {
  demoPurchaseRefused,
  demoPurchaseStaffReason,
  isDemoPurchase,
  refuseDemoPurchase,
} from "./demo-purchases.ts";
import { billingUnavailable, providerUnavailable, subscriptionEnded } from "./errors.ts";
import type { BillingServices, StripeReferences } from "./fulfil.ts";
import { checkoutCharge, orderNumberOf, queueReceipt, recordCharge, recordMoney } from "./ledger.ts";
import { findSubscription } from "./self-service.ts";
import { changeStripePlan } from "./stripe-provider.ts";
import { actionNotApplicable } from "./subscription-actions.ts";

// Moving a subscription to another plan (decision 134): upgrade, downgrade, monthly ↔ yearly, and
// an Unlock Pass's 7 more days or move to a plan. This module owns every rule of it behind one
// entry, `planChange`, which the account page, the API, the staff console, fulfilment and the
// Stripe webhook call with a request naming its step:
// - the built-in checkout's subscriptions change at once, their difference charged (with a receipt)
//   or credited on the ledger;
// - Stripe's are changed at Stripe with proration and take effect when its
//   `customer.subscription.updated` arrives ("stripe-updated"); one Stripe invoices at once
//   (monthly ↔ yearly) is "awaiting payment" until `invoice.paid` names it ("invoice-paid",
//   decision 125);
// - a pass changes through its own checkout ("pass-checkout"), applied when paid ("pass-paid").
// The pure terms (kind, proration, targets) are core/plan-change-terms.ts, shared with the page.

const target = { subscriptionId: z.uuid(), planId: z.enum(PLAN_IDS) };
export const planChangeQuoteSchema = z.object(target).strict();
export const planChangeSchema = z
  .object({ ...target, keepDeviceIds: z.array(z.uuid()).max(3).optional() })
  .strict();
export const staffPlanChangeSchema = planChangeSchema.extend({ reason: staffReasonSchema }).strict();
export const passCheckoutSchema = z.object(target).strict();
export type PlanChangeQuoteInput = z.infer<typeof planChangeQuoteSchema>;
export type PlanChangeInput = z.infer<typeof planChangeSchema>;

type Summary = { planId: string; name: string; price: string; deviceLimit: number };

export interface PlanChangeQuote {
  subscriptionId: string;
  kind: PlanChangeTerms["kind"];
  from: Summary;
  to: Summary;
  amountCents: number;
  currency: "usd";
  chargedNow: boolean;
  periodEndsAt: string;
  /** Paid through a checkout (the "pass-checkout" step), not changed in place. */
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

export type PlanChangeOption = Summary & Pick<PlanChangeTerms, "kind" | "amountCents" | "chargedNow">;

export interface AwaitingPayment {
  subscriptionId: string;
  planChangeId: string;
  /** The number its order will carry once paid (its charge takes it from the plan change). */
  orderNumber: string;
  planId: string;
  planName: string;
  /** What was quoted; Stripe's invoice says what is charged. */
  amountCents: number;
  currency: string;
  requestedAt: string;
}

/** Who asks: the signed-in owner (anyone else's subscription is "not found"), or staff with a reason. */
export type PlanChangeBy = { customer: Customer } | { staff: SignedInStaff; reason: string };

type Services = BillingServices;

/** Each step of a plan change, with what it needs; `planChange` answers with `PlanChangeAnswers[step]`. */
export type PlanChangeRequest =
  /** The plans staff may move a usable recurring subscription to, each with its terms now. */
  | { step: "options"; subscription: Subscription; demoPurchase: boolean }
  /** What moving would cost and which devices it keeps, for the confirmation screen. */
  | { step: "quote"; services: Services; by: { customer: Customer }; input: PlanChangeQuoteInput }
  /** Changes a recurring subscription's plan (a downgrade below the live devices names those kept). */
  | { step: "change"; services: Services; by: PlanChangeBy; input: PlanChangeInput }
  /** Starts the checkout that extends a pass or moves it to a plan. */
  | { step: "pass-checkout"; services: Services; by: { customer: Customer }; input: PlanChangeQuoteInput }
  /** A pass's own checkout was paid (fulfilment, once per session, in its transaction). */
  | {
      step: "pass-paid";
      services: Services;
      tx: Transaction;
      session: CheckoutSession;
      references: StripeReferences;
    }
  /** Stripe's subscription names another plan (the webhook, the subscription row locked). */
  | {
      step: "stripe-updated";
      services: Services;
      tx: Transaction;
      subscription: Subscription;
      remote: { metadata?: Stripe.Metadata | null };
    }
  /** A `subscription_update` invoice was paid: the plan change it pays, if one is recorded. */
  | { step: "invoice-paid"; tx: Transaction; subscriptionId: string }
  /** The plan changes of these subscriptions whose Stripe invoice is not paid yet. */
  | { step: "awaiting"; executor: Executor; subscriptionIds: string[] };

export interface PlanChangeAnswers {
  options: PlanChangeOption[];
  quote: PlanChangeQuote;
  change: PlanChangeResult;
  "pass-checkout": { url: string };
  "pass-paid": Subscription | undefined;
  "stripe-updated": void;
  "invoice-paid": PlanChange | undefined;
  awaiting: AwaitingPayment[];
}

/** The one entry of plan changes. Callers have checked staff's role; the owner check is here. */
export async function planChange<R extends PlanChangeRequest>(
  request: R,
  now = new Date(),
): Promise<PlanChangeAnswers[R["step"]]> {
  return (await answer(request, now)) as PlanChangeAnswers[R["step"]];
}

async function answer(request: PlanChangeRequest, now: Date) {
  switch (request.step) {
    case "options":
      return options(request.subscription, now, request.demoPurchase);
    case "quote":
      await ownerCheck(request.services, request.by, request.input.subscriptionId);
      return quote(request.services, request.input, now);
    case "change":
      await ownerCheck(request.services, request.by, request.input.subscriptionId);
      return change(request.services, request.input, "staff" in request.by ? request.by : null, now);
    case "pass-checkout":
      await ownerCheck(request.services, request.by, request.input.subscriptionId);
      return startPassCheckout(request.services, request.input, now);
    case "pass-paid":
      return applyPassCheckout(request.tx, request.services, request.session, request.references, now);
    case "stripe-updated":
      return applyStripePlanChange(request.tx, request.services, request.subscription, request.remote, now);
    case "invoice-paid":
      return unpaidPlanChange(request.tx, request.subscriptionId);
    case "awaiting":
      return awaitingPayments(request.executor, request.subscriptionIds);
  }
}

async function ownerCheck(services: Services, by: PlanChangeBy, subscriptionId: string) {
  if ("customer" in by) await ownedSubscription(services.db, by.customer, subscriptionId);
}

/** The terms of moving this subscription to `toPlanId` at `now`; refused when it is no change. */
function termsOf(subscription: Subscription, toPlanId: string, now: Date): PlanChangeTerms {
  const from = findPlan(subscription.planId);
  const to = findPlan(toPlanId);
  if (!from || !to) throw invalidInput("Unknown plan.");
  const refusal = planChangeRefusal(from, to);
  if (refusal) throw conflict(refusal);
  return planChangeTerms(from, to, subscription.expiresAt, now);
}

const planSummary = (plan: Plan): Summary => ({
  planId: plan.id,
  name: plan.name,
  price: `${plan.price}${plan.period === "one-time" ? "" : plan.period}`,
  deviceLimit: plan.deviceLimit,
});

/** None for a pass (only its holder's own checkout changes it; staff extend it) nor a demo purchase. */
function options(subscription: Subscription, now: Date, demoPurchase: boolean): PlanChangeOption[] {
  const from = findPlan(subscription.planId);
  if (!isUsable(subscription, now) || from?.billing !== "recurring" || demoPurchase) return [];
  return planChangeTargets(from, PLANS).map((plan) => {
    const terms = planChangeTerms(from, plan, subscription.expiresAt, now);
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

async function quote(services: Services, input: PlanChangeQuoteInput, now: Date): Promise<PlanChangeQuote> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  refuseUnchangeable(subscription, now);
  refuseDemoPurchase(services.config, provider, subscription, now);
  const terms = termsOf(subscription, input.planId, now);
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

type Staff = { staff: SignedInStaff; reason: string } | null;

/** The devices beyond the new limit are revoked when the change takes effect; staff changes are audited. */
async function change(
  services: Services,
  input: PlanChangeInput,
  actor: Staff,
  now: Date,
): Promise<PlanChangeResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  refuseUnchangeable(subscription, now);
  if (isDemoPurchase(provider, services.config))
    throw actor
      ? actionNotApplicable(demoPurchaseStaffReason(subscription.expiresAt, now))
      : demoPurchaseRefused(subscription.expiresAt, now);
  const terms = termsOf(subscription, input.planId, now);
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
      const [row] = await tx
        .insert(planChanges)
        .values({ ...request, status: "applied", appliedAt: now })
        .returning();
      const effect = { expiresAt: terms.periodEndsAt, chargedNow: terms.chargedNow };
      const applied = await applyChange(tx, services, current, row!, effect, now);
      await recordDemoPlanChangeMoney(tx, services, applied, row!, now);
      await auditChange(tx, actor, row!, "applied", now);
      return applied;
    });
    services.mail.wake();
    return resultOf(changed, "applied");
  }
  if (!subscription.stripeSubscriptionId || !services.config.STRIPE_SECRET_KEY) throw billingUnavailable();
  // Recorded first, so the webhook that may overtake Stripe's answer finds the devices to keep.
  const pending = await services.db.transaction(async (tx) => {
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
      .where(and(eq(planChanges.id, pending.id), eq(planChanges.status, "pending")));
    if (error instanceof DomainError) throw error;
    services.logger.error(
      { err: error, subscriptionId: subscription.id },
      "stripe: changing the plan failed",
    );
    throw providerUnavailable();
  }
  if (actor) await services.db.transaction((tx) => auditChange(tx, actor, pending, "pending", now));
  const { subscription: latest } = await findSubscription(services.db, subscription.id);
  return resultOf(latest, latest.planId === terms.to.id ? "applied" : "pending");
}

/** The built-in checkout settles a change at once; Stripe's are settled on its invoices (webhook-events.ts). */
async function recordDemoPlanChangeMoney(
  tx: Transaction,
  services: Services,
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

function auditChange(tx: Transaction, actor: Staff, change: PlanChange, status: string, now: Date) {
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

/** The change takes effect (the caller holds the row lock): plan, limit, devices kept, the e-mail. */
async function applyChange(
  tx: Transaction,
  services: Services,
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

// ---- Stripe: the change asked of Stripe, its confirmation, and its invoice ----

/**
 * Stripe's record names another plan (our change, or one made in Stripe's Dashboard): the stored
 * plan and device limit follow the plan id in its metadata, keeping the devices the customer chose.
 */
async function applyStripePlanChange(
  tx: Transaction,
  services: Services,
  subscription: Subscription,
  remote: { metadata?: Stripe.Metadata | null },
  now: Date,
): Promise<void> {
  const planId = remote.metadata?.planId;
  const plan = typeof planId === "string" ? findPlan(planId) : undefined;
  const from = findPlan(subscription.planId);
  if (!plan || !from || plan.billing !== "recurring" || plan.id === subscription.planId) return;
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
    const terms = planChangeTerms(from, plan, subscription.expiresAt, now);
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

const stripeKinds = ["upgrade", "downgrade", "switch"] as const;

/**
 * Awaiting payment (decision 125): the latest change of each Stripe-billed subscription, when it
 * charges now and no ledger row names it yet. A plan that has ended waits for nothing.
 */
async function awaitingPayments(executor: Executor, subscriptionIds: string[]): Promise<AwaitingPayment[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await executor
    .select({ change: planChanges, status: subscriptions.status })
    .from(planChanges)
    .innerJoin(subscriptions, eq(subscriptions.id, planChanges.subscriptionId))
    .where(
      and(
        inArray(planChanges.subscriptionId, subscriptionIds),
        ne(planChanges.status, "superseded"),
        inArray(planChanges.kind, stripeKinds),
        sql`${subscriptions.stripeSubscriptionId} is not null`,
      ),
    )
    .orderBy(desc(planChanges.requestedAt));
  const latest = new Map<string, (typeof rows)[number]>();
  for (const row of rows)
    if (!latest.has(row.change.subscriptionId)) latest.set(row.change.subscriptionId, row);
  const candidates = [...latest.values()].filter(
    ({ change, status }) =>
      isPaidUp(status) && change.amountCents > 0 && invoicedAtOnce(change.fromPlanId, change.toPlanId),
  );
  if (candidates.length === 0) return [];
  const paid = await executor
    .select({ planChangeId: ledgerEntries.planChangeId })
    .from(ledgerEntries)
    .where(
      inArray(
        ledgerEntries.planChangeId,
        candidates.map(({ change }) => change.id),
      ),
    );
  const paidIds = new Set(paid.map((row) => row.planChangeId));
  return candidates
    .filter(({ change }) => !paidIds.has(change.id))
    .map(({ change }) => ({
      subscriptionId: change.subscriptionId,
      planChangeId: change.id,
      orderNumber: orderNumberOf(change.id),
      planId: change.toPlanId,
      planName: findPlan(change.toPlanId)?.name ?? change.toPlanId,
      amountCents: change.amountCents,
      currency: change.currency,
      requestedAt: change.requestedAt.toISOString(),
    }));
}

/**
 * The change a `subscription_update` invoice pays: the latest that no ledger row names yet.
 * Undefined when there is none (made in Stripe's Dashboard, its `customer.subscription.updated`
 * not arrived yet: `linkInvoicedChange` names it then).
 */
async function unpaidPlanChange(executor: Executor, subscriptionId: string) {
  const [change] = await executor
    .select()
    .from(planChanges)
    .where(
      and(
        eq(planChanges.subscriptionId, subscriptionId),
        ne(planChanges.status, "superseded"),
        inArray(planChanges.kind, stripeKinds),
        sql`not exists (select 1 from ${ledgerEntries} where ${ledgerEntries.planChangeId} = ${planChanges.id})`,
      ),
    )
    .orderBy(desc(planChanges.requestedAt))
    .limit(1);
  return change;
}

/**
 * A change recorded after the invoice that paid it (Stripe does not promise event order): the
 * invoice's rows, recorded with no plan change, now name it; their order number stays the
 * receipt's. `since`: when the change before it was asked for (older invoices paid that one).
 */
async function linkInvoicedChange(
  executor: Executor,
  subscriptionId: string,
  planChangeId: string,
  since: Date | null,
) {
  await executor
    .update(ledgerEntries)
    .set({ planChangeId })
    .where(
      and(
        eq(ledgerEntries.subscriptionId, subscriptionId),
        eq(ledgerEntries.provider, "stripe"),
        eq(ledgerEntries.purpose, "plan_change"),
        isNull(ledgerEntries.planChangeId),
        since ? gte(ledgerEntries.occurredAt, since) : undefined,
      ),
    );
}

// ---- An Unlock Pass's own checkout: 7 more days, or the pass becomes a recurring plan ----

async function startPassCheckout(services: Services, input: PlanChangeQuoteInput, now: Date) {
  const terms = await quote(services, input, now);
  if (!terms.throughCheckout)
    throw conflict("Only an Unlock Pass changes through a checkout: change this plan directly instead.");
  const { subscription } = await findSubscription(services.db, input.subscriptionId);
  const { url } = await checkoutProvider(services).createSession({
    plan: findPlan(input.planId)!,
    customerEmail: subscription.customerEmail,
    customerName: null,
    // Signed in on /account, the customer needs no buyer cookie: this hash matches no cookie.
    buyerTokenHash: hashToken(generateToken()),
    renewsSubscriptionId: subscription.id,
  });
  return { url };
}

/**
 * Once per session, the pass gets 7 more days or becomes the recurring plan it paid for, with the
 * customer's e-mail. A pass refunded or disputed meanwhile stays ended (the payment is logged for staff).
 */
async function applyPassCheckout(
  tx: Transaction,
  services: Services,
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
  const terms = termsOf(pass, session.planId, session.paidAt ?? now);
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
  // The pass becomes the Stripe subscription its checkout started; an extension changes no reference.
  const stripe =
    terms.kind === "pass-to-subscription"
      ? {
          customerId: references.stripeCustomerId ?? null,
          subscriptionId: references.stripeSubscriptionId ?? null,
        }
      : undefined;
  const effect = { expiresAt: terms.periodEndsAt, chargedNow: true, stripe };
  const changed = await applyChange(tx, services, pass, change, effect, now);
  if (charge) await queueReceipt(tx, services, changed, charge);
  return changed;
}
