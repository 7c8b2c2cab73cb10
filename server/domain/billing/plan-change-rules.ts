import { findPlan, type Plan } from "#core/plans.ts";
import type { PlanChangeKind } from "#server/db/schema/index.ts";
import { conflict, invalidInput } from "#server/domain/errors.ts";
import { DAY_MS } from "#server/domain/time.ts";

// What a plan change is and what it costs: pure rules, shared by the customer's
// and the staff's changes, the demo checkout and the quote Stripe is asked to charge.

export interface PlanChangeTerms {
  kind: PlanChangeKind;
  from: Plan;
  to: Plan;
  /** The price difference: positive is charged, negative is credited (Stripe: on the next invoice). */
  amountCents: number;
  /** Charged at once (a new billing period starts); otherwise settled on the next invoice. */
  chargedNow: boolean;
  /** When the paid period ends after the change. */
  periodEndsAt: Date;
  /** Paid through a checkout (the Unlock Pass has no saved card to prorate). */
  throughCheckout: boolean;
}

/** Which change moving `from` → `to` is; refused when there is none to make. */
export function planChangeKind(from: Plan, to: Plan): PlanChangeKind {
  if (from.billing === "one_time") return to.billing === "one_time" ? "pass-extend" : "pass-to-subscription";
  if (to.billing === "one_time")
    throw conflict("A subscription cannot become an Unlock Pass. Cancel at period end instead.");
  if (from.id === to.id) throw conflict(`This subscription is on ${to.name} already.`);
  if (to.deviceLimit > from.deviceLimit) return "upgrade";
  if (to.deviceLimit < from.deviceLimit) return "downgrade";
  return "switch";
}

/**
 * The terms of moving a subscription whose paid period ends at `periodEndsAt` to `to` at `now`.
 * Stripe's proration rule: the unused part of the old price is credited and the new price is
 * charged for the same remaining time, to the second; changing between monthly and yearly starts
 * a new period now, charging the new price in full less that credit. Pass changes are paid in full.
 */
export function planChangeTerms(
  fromPlanId: string,
  toPlanId: string,
  periodEndsAt: Date,
  now: Date,
): PlanChangeTerms {
  const from = findPlan(fromPlanId);
  const to = findPlan(toPlanId);
  if (!from || !to) throw invalidInput("Unknown plan.");
  const kind = planChangeKind(from, to);
  const later = (date: Date) => (date > now ? date : now);
  if (kind === "pass-extend")
    return {
      kind,
      from,
      to,
      amountCents: to.priceCents,
      chargedNow: true,
      throughCheckout: true,
      periodEndsAt: new Date(later(periodEndsAt).getTime() + to.accessDays * DAY_MS),
    };
  if (kind === "pass-to-subscription") {
    const firstPeriodEnds = new Date(now.getTime() + to.accessDays * DAY_MS);
    return {
      kind,
      from,
      to,
      amountCents: to.priceCents,
      chargedNow: true,
      throughCheckout: true,
      periodEndsAt: later(periodEndsAt) > firstPeriodEnds ? periodEndsAt : firstPeriodEnds,
    };
  }
  const periodMs = from.accessDays * DAY_MS;
  const remaining = Math.min(1, Math.max(0, (periodEndsAt.getTime() - now.getTime()) / periodMs));
  const unusedCredit = Math.round(from.priceCents * remaining);
  if (from.interval === to.interval)
    return {
      kind,
      from,
      to,
      chargedNow: false,
      throughCheckout: false,
      periodEndsAt,
      amountCents: Math.round(to.priceCents * remaining) - unusedCredit,
    };
  return {
    kind,
    from,
    to,
    chargedNow: true,
    throughCheckout: false,
    amountCents: to.priceCents - unusedCredit,
    periodEndsAt: new Date(now.getTime() + to.accessDays * DAY_MS),
  };
}

/** The plans a subscription on `planId` can move to, in catalogue order. */
export function planChangeTargets(planId: string, plans: readonly Plan[]): Plan[] {
  const from = findPlan(planId);
  if (!from) return [];
  return plans.filter((to) => {
    if (from.billing === "one_time") return true;
    return to.billing === "recurring" && to.id !== from.id;
  });
}
