import { and, exists, inArray, isNull, lte, notInArray, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { endSubscriptions } from "#server/domain/billing/end-subscription.ts";
import type { CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
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
    const due = await tx.select().from(subscriptions).where(usableAndDue).for("update");
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
    const { ended, revokedDevices } = await endSubscriptions(
      tx,
      services,
      due,
      { cause: "expiry" },
      now,
      unusable.map((row) => row.id),
    );
    return { ended: ended.length, revokedDevices };
  });
  if (result.ended) services.mail.wake();
  return result;
}
