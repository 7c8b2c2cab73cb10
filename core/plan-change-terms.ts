import { findPlan, type Plan } from "./plans.ts";

// What a plan change is and what it costs: pure rules, used by the server's one plan-change
// module (server/domain/billing/plan-change.ts, decision 134) and by the account page's panel,
// which offers the same targets the server accepts.

const DAY_MS = 86_400_000;

export type PlanChangeKind = "upgrade" | "downgrade" | "switch" | "pass-extend" | "pass-to-subscription";

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

/** Why moving `from` → `to` is no change to make, or null when it is one. */
export function planChangeRefusal(from: Plan, to: Plan): string | null {
  if (from.billing === "one_time") return null;
  if (to.billing === "one_time")
    return "A subscription cannot become an Unlock Pass. Cancel at period end instead.";
  if (from.id === to.id) return `This subscription is on ${to.name} already.`;
  return null;
}

/** Which change moving `from` → `to` is (`planChangeRefusal` says first whether it is one). */
export function planChangeKind(from: Plan, to: Plan): PlanChangeKind {
  if (from.billing === "one_time") return to.billing === "one_time" ? "pass-extend" : "pass-to-subscription";
  if (to.deviceLimit > from.deviceLimit) return "upgrade";
  if (to.deviceLimit < from.deviceLimit) return "downgrade";
  return "switch";
}

/**
 * The terms of moving a subscription on `from` whose paid period ends at `periodEndsAt` to `to`
 * at `now`. Stripe's proration rule: the unused part of the old price is credited and the new
 * price is charged for the same remaining time, to the second; changing between monthly and
 * yearly starts a new period now, charging the new price in full less that credit. Pass changes
 * are paid in full.
 */
export function planChangeTerms(from: Plan, to: Plan, periodEndsAt: Date, now: Date): PlanChangeTerms {
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

/** The plans a subscription on `from` can move to, in catalogue order: a pass to any (itself: 7 more days). */
export function planChangeTargets(from: Plan, plans: readonly Plan[]): Plan[] {
  return plans.filter((to) => planChangeRefusal(from, to) === null);
}

/** Whether Stripe invoices a change at once: a change of billing interval restarts the period. */
export const invoicedAtOnce = (fromPlanId: string, toPlanId: string) =>
  findPlan(fromPlanId)?.interval !== findPlan(toPlanId)?.interval;
