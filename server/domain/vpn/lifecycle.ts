import { and, exists, inArray, isNull, lte, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import type { Logger } from "#server/logger.ts";
import { revokeSubscriptionDevices } from "./devices.ts";
import { USABLE_STATUSES } from "./usable.ts";

export interface ExpiryResult {
  /** Subscriptions whose period ended: `expired`, or `canceled` when cancelled at period end. */
  ended: number;
  /** Devices revoked (their peers leave the VPN servers at the next agent sync). */
  revokedDevices: number;
}

/**
 * Ends every active or past-due subscription whose period is over and revokes the devices of
 * every subscription that is no longer usable (expired, canceled, refunded). Idempotent: a
 * second run finds nothing to do.
 */
export async function expireDue(db: Database, now = new Date()): Promise<ExpiryResult> {
  return db.transaction(async (tx) => {
    const ended = await tx
      .update(subscriptions)
      .set({
        status: sql`case when ${subscriptions.cancelAtPeriodEnd} then 'canceled' else 'expired' end`,
        updatedAt: now,
      })
      .where(and(inArray(subscriptions.status, [...USABLE_STATUSES]), lte(subscriptions.expiresAt, now)))
      .returning({ id: subscriptions.id });
    const unusable = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(
        and(
          inArray(subscriptions.status, ["canceled", "expired", "refunded"]),
          exists(
            tx
              .select({ one: sql`1` })
              .from(devices)
              .where(and(sql`${devices.subscriptionId} = ${subscriptions.id}`, isNull(devices.revokedAt))),
          ),
        ),
      );
    const revokedDevices = await revokeSubscriptionDevices(
      tx,
      unusable.map((row) => row.id),
      now,
    );
    return { ended: ended.length, revokedDevices };
  });
}

export interface ExpiryTimer {
  stop(): Promise<void>;
}

/** Runs `expireDue` now and then every `intervalMs`; a failed run is logged and retried next time. */
export function startExpiryTimer(deps: { db: Database; logger: Logger }, intervalMs = 60_000): ExpiryTimer {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = expireDue(deps.db)
      .then((result) => {
        if (result.ended || result.revokedDevices)
          deps.logger.info(result, "ended subscriptions and revoked their devices");
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, "subscription expiry run failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
