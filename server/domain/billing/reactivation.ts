import { and, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { subscriptionEvents, subscriptions } from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { staffReasonSchema } from "#server/domain/ops/audit.ts";
import { issueDevice, liveDevices } from "#server/domain/vpn/devices.ts";
import { isPaidUp, lockSubscription, USABLE_STATUSES } from "#server/domain/vpn/usable.ts";
import type { BillingServices } from "./fulfil.ts";
import { findSubscription, resumeSubscription } from "./self-service.ts";
import { resultOf, subscriptionAudit, type StaffSubscriptionResult } from "./staff-action-support.ts";
import { requireApplicable } from "./subscription-actions.ts";
import { isDemoPurchase } from "./demo-purchases.ts";

// Staff reactivation of a cancelled subscription: what "reactivate" may undo.

export const reactivateSubscriptionSchema = z
  .object({ subscriptionId: z.uuid(), reason: staffReasonSchema })
  .strict();

/**
 * Undoes a cancellation: a plan cancelling at its period end renews again (the
 * customer's resume); a cancelled one is active again until the end of the period it had paid
 * for, with device 1 issued again if none is live. A refunded, disputed or expired plan, or one
 * whose paid period is over, stays ended: 409.
 */
export async function reactivateSubscription(
  services: BillingServices,
  staff: SignedInStaff,
  input: z.infer<typeof reactivateSubscriptionSchema>,
  now = new Date(),
): Promise<StaffSubscriptionResult> {
  const { subscription, provider } = await findSubscription(services.db, input.subscriptionId);
  const audit = subscriptionAudit(staff, "subscription.reactivate", input, now);
  requireApplicable(
    { ...subscription, demoPurchase: isDemoPurchase(provider, services.config) },
    "reactivate",
    now,
  );
  if (isPaidUp(subscription.status)) {
    const row = await resumeSubscription(services, subscription.id, now, (tx) =>
      audit(tx, { undid: "cancel-at-period-end" }),
    );
    return resultOf(row);
  }
  const row = await services.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    const paidPeriod = (await paidPeriodEnd(tx, current.id)) ?? null;
    requireApplicable({ ...current, paidUntil: paidPeriod }, "reactivate", now);
    // The rule refused a cancelled plan with no paid period left.
    const paidUntil = paidPeriod!;
    const [reactivated] = await tx
      .update(subscriptions)
      // A Stripe subscription cancelled there cannot restart: this period is the last.
      .set({
        status: "active",
        expiresAt: paidUntil,
        cancelAtPeriodEnd: current.stripeSubscriptionId !== null,
        updatedAt: now,
      })
      .where(eq(subscriptions.id, current.id))
      .returning();
    const reissued =
      (await liveDevices(tx, current.id)).length === 0
        ? (await issueDevice(tx, services, reactivated!)).device
        : undefined;
    await audit(tx, { paidUntil: paidUntil.toISOString(), reissuedDeviceId: reissued?.id ?? null });
    return reactivated!;
  });
  services.mail.wake();
  return resultOf(row);
}

/** The period end it last had while paid up, from its history (migration 0023). */
export async function paidPeriodEnd(tx: Executor, subscriptionId: string): Promise<Date | undefined> {
  const [event] = await tx
    .select({ expiresAt: subscriptionEvents.expiresAt })
    .from(subscriptionEvents)
    .where(
      and(
        eq(subscriptionEvents.subscriptionId, subscriptionId),
        inArray(subscriptionEvents.status, [...USABLE_STATUSES]),
      ),
    )
    .orderBy(desc(subscriptionEvents.id))
    .limit(1);
  return event?.expiresAt;
}
