import { z } from "zod";
import type { Transaction } from "#server/db/client.ts";
import type { Subscription } from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { DomainError } from "#server/domain/errors.ts";
import { recordStaffAction, staffReasonSchema } from "#server/domain/ops/audit.ts";
import { billingUnavailable, providerUnavailable } from "./errors.ts";
import type { BillingServices } from "./fulfil.ts";

// What the staff actions on a subscription (staff-actions.ts, reactivation.ts) share: the input
// naming the subscription, the answer, the audit entry, and the guard around a call to Stripe.

export const subscriptionTarget = { subscriptionId: z.uuid(), reason: staffReasonSchema };

export interface StaffSubscriptionResult {
  subscriptionId: string;
  status: Subscription["status"];
  expiresAt: string;
  cancelAtPeriodEnd: boolean;
}

export const resultOf = (row: Subscription): StaffSubscriptionResult => ({
  subscriptionId: row.id,
  status: row.status,
  expiresAt: row.expiresAt.toISOString(),
  cancelAtPeriodEnd: row.cancelAtPeriodEnd,
});

/** Writes the audit entry of a staff action on a subscription, inside the action's transaction. */
export function subscriptionAudit(
  staff: SignedInStaff,
  action: string,
  input: { subscriptionId: string; reason: string },
  now: Date,
) {
  return (tx: Transaction, details: Record<string, unknown>) =>
    recordStaffAction(
      tx,
      staff,
      { action, targetType: "subscription", targetId: input.subscriptionId, reason: input.reason, details },
      now,
    );
}

/** Runs a Stripe call; Stripe refusing or unreachable is a 502 and nothing is recorded here. */
export async function atStripe<T>(
  services: BillingServices,
  what: string,
  subscriptionId: string,
  call: () => Promise<T>,
) {
  if (!services.config.STRIPE_SECRET_KEY) throw billingUnavailable();
  try {
    return await call();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    services.logger.error({ err: error, subscriptionId }, `stripe: ${what} failed`);
    throw providerUnavailable();
  }
}
