import { and, exists, inArray, isNull, lte, notInArray, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { queuePeriodEmail, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import { revokeSubscriptionDevices } from "./devices.ts";
import { USABLE_STATUSES } from "./usable.ts";

export interface ExpiryResult {
  /** Subscriptions whose period ended: `expired`, or `canceled` when cancelled at period end. */
  ended: number;
  /** Devices revoked (their peers leave the VPN servers at the next agent sync). */
  revokedDevices: number;
}

export type ExpiryServices = CustomerEmailDeps & { db: Database; mail: { wake(): void } };

/**
 * Ends every active or past-due subscription whose period is over, telling its customer, and
 * revokes the devices of every subscription that is no longer usable (expired, canceled,
 * refunded, disputed). Idempotent: a second run finds nothing to do and sends nothing.
 */
export async function expireDue(services: ExpiryServices, now = new Date()): Promise<ExpiryResult> {
  const result = await services.db.transaction(async (tx) => {
    const usableAndDue = and(
      inArray(subscriptions.status, [...USABLE_STATUSES]),
      lte(subscriptions.expiresAt, now),
    );
    const due = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(usableAndDue)
      .for("update");
    const unusable = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(
        and(
          notInArray(subscriptions.status, [...USABLE_STATUSES]),
          exists(
            tx
              .select({ one: sql`1` })
              .from(devices)
              .where(and(sql`${devices.subscriptionId} = ${subscriptions.id}`, isNull(devices.revokedAt))),
          ),
        ),
      );
    // Devices first, as ending a plan anywhere does: revoking takes their server's row, then its
    // peer-version row, the order device issuing takes them in; a status change first would take
    // the peer-version row first and deadlock with a purchase on the same server.
    const revokedDevices = await revokeSubscriptionDevices(
      tx,
      [...due, ...unusable].map((row) => row.id),
      now,
    );
    const dueIds = due.map((row) => row.id);
    const ended = dueIds.length
      ? await tx
          .update(subscriptions)
          .set({
            status: sql`case when ${subscriptions.cancelAtPeriodEnd} then 'canceled' else 'expired' end`,
            updatedAt: now,
          })
          .where(inArray(subscriptions.id, dueIds))
          .returning()
      : [];
    for (const subscription of ended)
      await queuePeriodEmail(tx, services, subscription, "subscription-expired");
    return { ended: ended.length, revokedDevices };
  });
  if (result.ended) services.mail.wake();
  return result;
}
