import { findPlan } from "#core/plans.ts";
import type { Subscription } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import { formatLongDate } from "#core/format.ts";
import { demoPurchaseStaffReason } from "./demo-purchases.ts";

// The one rule for which staff actions apply to a subscription in its state: the
// staff page offers exactly these, and each action's API refuses the others with a 409 before it
// changes anything (and again under the row lock, in case the state moved meanwhile).

export const STAFF_SUBSCRIPTION_ACTIONS = [
  "extend",
  "cancel-period-end",
  "cancel-now",
  "refund",
  "reactivate",
] as const;
export type StaffSubscriptionAction = (typeof STAFF_SUBSCRIPTION_ACTIONS)[number];

/** What the rule reads of a subscription. `paidUntil`: its last paid-up period end (for reactivation). */
export interface SubscriptionState {
  status: Subscription["status"];
  cancelAtPeriodEnd: boolean;
  planId: string;
  expiresAt: Date;
  paidUntil?: Date | null;
  /** Bought on the test checkout of a store that now takes real money (demo-purchases.ts). */
  demoPurchase?: boolean;
}

/** What a demo purchase may still have done to it: it ends, sooner or at its period end. */
const DEMO_PURCHASE_ACTIONS: readonly StaffSubscriptionAction[] = ["cancel-now", "cancel-period-end"];

/** Why `action` cannot apply to a subscription in this state, or null when it can. */
export function whyNot(state: SubscriptionState, action: StaffSubscriptionAction, now: Date): string | null {
  const { status } = state;
  if (status === "refunded") return "This subscription has been refunded: it has ended and stays ended.";
  if (status === "disputed")
    return "This payment is disputed: answer the dispute in the Stripe Dashboard; the subscription stays ended.";
  if (state.demoPurchase && !DEMO_PURCHASE_ACTIONS.includes(action))
    return demoPurchaseStaffReason(state.expiresAt, now);
  const paidUp = isPaidUp(status);
  const running = paidUp && state.expiresAt > now;
  switch (action) {
    case "extend":
      return paidUp
        ? null
        : `This subscription is ${status}: reactivate it first, if its paid period has not ended.`;
    case "cancel-period-end":
      if (findPlan(state.planId)?.billing !== "recurring")
        return "This plan is paid once and does not renew.";
      if (!running) return `This subscription is ${paidUp ? "past its period end" : status}: nothing renews.`;
      return state.cancelAtPeriodEnd ? "This subscription already ends at its period end." : null;
    case "cancel-now":
      return paidUp ? null : `This subscription is ${status} already.`;
    case "refund":
      return null;
    case "reactivate":
      if (paidUp) {
        if (!state.cancelAtPeriodEnd) return "This subscription is not cancelled.";
        return running ? null : "Its paid period has ended: the customer needs to buy again.";
      }
      if (status !== "canceled")
        return `This subscription is ${status}: only a cancelled one can be reactivated.`;
      if (state.paidUntil === undefined) return null;
      if (!state.paidUntil || state.paidUntil <= now)
        return `Its paid period ended${state.paidUntil ? ` on ${formatLongDate(state.paidUntil)}` : ""}: the customer needs to buy again.`;
      return null;
  }
}

/** The staff actions that apply now, in the order the page shows them. */
export function applicableStaffActions(state: SubscriptionState, now: Date): StaffSubscriptionAction[] {
  return STAFF_SUBSCRIPTION_ACTIONS.filter((action) => whyNot(state, action, now) === null);
}

export const actionNotApplicable = (message: string) =>
  new DomainError("conflict", "Action not available", message);

/** Throws the 409 of an action that does not apply in this state; changes nothing. */
export function requireApplicable(
  state: SubscriptionState,
  action: StaffSubscriptionAction,
  now: Date,
): void {
  const reason = whyNot(state, action, now);
  if (reason) throw actionNotApplicable(reason);
}
