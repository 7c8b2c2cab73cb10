import { and, eq, gt, inArray, lte, notExists, or, sql } from "drizzle-orm";
import { PLANS } from "#core/plans.ts";
import type { Database } from "#server/db/client.ts";
import { subscriptionNotices, subscriptions } from "#server/db/schema/index.ts";
import { queuePeriodEmail, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import { DAY_MS } from "#server/domain/time.ts";
import { notDemoPurchase, type CheckoutModeConfig } from "./demo-purchases.ts";

/** A yearly renewal is announced 3 days ahead; the end of a pass, 1 day ahead. */
export const RENEWAL_REMINDER_DAYS = 3;
export const PASS_ENDING_DAYS = 1;

const YEARLY_PLAN_TYPES = PLANS.filter((plan) => plan.interval === "year").map((plan) => plan.planType);
const PASS_PLAN_TYPES = PLANS.filter((plan) => plan.billing === "one_time").map((plan) => plan.planType);

export type ReminderServices = CustomerEmailDeps & {
  config: CheckoutModeConfig;
  db: Database;
  mail: { wake(): void };
};

/**
 * Queues the renewal reminder of every active yearly subscription that renews within 3 days
 * (none once it is set to cancel, nor for a demo purchase on a live store) and the notice of
 * every pass that ends within a day. Each goes once per period: a `subscription_notices` row
 * keyed by subscription, kind and the `expiresAt` it announces is written in the same
 * transaction, so a later run, or a run in another process at the same time, finds it and sends
 * nothing; a renewal moves `expiresAt` and opens the next period.
 */
export async function queueDueReminders(
  services: ReminderServices,
  now = new Date(),
): Promise<{ reminded: number }> {
  const reminded = await services.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.status, "active"),
          gt(subscriptions.expiresAt, now),
          or(
            and(
              inArray(subscriptions.planType, YEARLY_PLAN_TYPES),
              eq(subscriptions.cancelAtPeriodEnd, false),
              // A demo purchase on a live store ends instead (decision 122): the expiry e-mail says so.
              notDemoPurchase(tx, services.config),
              lte(subscriptions.expiresAt, new Date(now.getTime() + RENEWAL_REMINDER_DAYS * DAY_MS)),
            ),
            and(
              inArray(subscriptions.planType, PASS_PLAN_TYPES),
              lte(subscriptions.expiresAt, new Date(now.getTime() + PASS_ENDING_DAYS * DAY_MS)),
            ),
          ),
          notExists(
            tx
              .select({ one: sql`1` })
              .from(subscriptionNotices)
              .where(
                and(
                  eq(subscriptionNotices.subscriptionId, subscriptions.id),
                  eq(subscriptionNotices.periodEndsAt, subscriptions.expiresAt),
                ),
              ),
          ),
        ),
      );
    let queued = 0;
    for (const subscription of due) {
      const kind = PASS_PLAN_TYPES.includes(subscription.planType) ? "pass-ending" : "renewal-reminder";
      const [marked] = await tx
        .insert(subscriptionNotices)
        .values({ subscriptionId: subscription.id, kind, periodEndsAt: subscription.expiresAt })
        .onConflictDoNothing()
        .returning({ kind: subscriptionNotices.kind });
      if (!marked) continue;
      const queuedId = await queuePeriodEmail(tx, services, subscription, kind);
      if (queuedId) queued += 1;
    }
    return queued;
  });
  if (reminded) services.mail.wake();
  return { reminded };
}
