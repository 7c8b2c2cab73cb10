import { eq } from "drizzle-orm";
import { subscriptions } from "#server/db/schema/index.ts";
import { awaitingConfiguration } from "#server/domain/vpn/configuration-pending.ts";
import { deviceSummary, ensureFirstDevice } from "#server/domain/vpn/devices.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { isUsable } from "#server/domain/vpn/usable.ts";
import { fulfilCheckout, type BillingServices } from "./fulfil.ts";

/** How many waiting buyers one run serves at most (oldest first); the next run takes the rest. */
export const WAITING_BUYERS_PER_RUN = 50;

/**
 * Buyers waiting at Configuration Pending get their first device (and its config e-mail) once a
 * VPN server has room, whether or not their success page is still open: the same
 * `fulfilCheckout` / `ensureFirstDevice` the success page's verification runs, oldest first, each
 * in its own transaction. Stops at the first one that still finds no room.
 */
export async function serveWaitingBuyers(
  services: BillingServices,
  now = new Date(),
): Promise<{ configsIssued: number }> {
  if (!(await anyServerCanTakeDevice(services.db))) return { configsIssued: 0 };
  const waiting = (await awaitingConfiguration(services.db, now)).slice(0, WAITING_BUYERS_PER_RUN);
  let configsIssued = 0;
  try {
    for (const buyer of waiting) {
      const outcome = await services.db.transaction(async (tx): Promise<"issued" | "no-room" | "gone"> => {
        if (buyer.subscriptionId === null) {
          const subscription = (await fulfilCheckout(tx, services, buyer.checkoutSessionId, {}, now))
            ?.subscription;
          if (!subscription || !isUsable(subscription, now)) return "gone";
          return (await deviceSummary(tx, subscription.id)).firstDevice ? "issued" : "no-room";
        }
        const [subscription] = await tx
          .select()
          .from(subscriptions)
          .where(eq(subscriptions.id, buyer.subscriptionId));
        // Ended or refunded since it was listed: nothing to deliver.
        if (!subscription || !isUsable(subscription, now)) return "gone";
        return (await ensureFirstDevice(tx, services, subscription)) ? "issued" : "no-room";
      });
      if (outcome === "no-room") break;
      if (outcome === "issued") configsIssued += 1;
    }
  } finally {
    if (configsIssued > 0) services.mail.wake();
  }
  return { configsIssued };
}
