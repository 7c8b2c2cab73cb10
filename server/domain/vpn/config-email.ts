import { eq } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { devices, type Device, type Subscription, type VpnServer } from "#server/db/schema/index.ts";
import { planName, queueToCustomer, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import type { Sealer } from "#server/secrets.ts";
import { alternateOffer, configFileName, downloadUrl, renderClientConfig } from "./config-file.ts";

export type ConfigEmailDeps = CustomerEmailDeps & { sealer: Sealer };

type ConfigEmailSubscription = Pick<Subscription, "customerEmail" | "planId" | "expiresAt" | "planType">;

/**
 * Queues, inside the caller's transaction, the e-mail that delivers a device's config: the
 * download link, the QR code inline, import steps and the .conf attached, and the same device on
 * its server's alternate port; for a device beyond the first it is also the
 * "device added, was this you?" notice. Nothing is queued when the subscription has no valid
 * customer e-mail (returns null). Call `services.mail.wake()` after the commit; the outbox worker
 * renders and sends it and retries, so a mail-server outage delays the message, never drops it.
 */
export async function queueConfigEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  issued: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
  now = new Date(),
): Promise<string | null> {
  const queued = await queueNewDeviceConfigEmail(tx, deps, issued, subscription);
  // The e-mail hands out the config as it is now.
  if (queued) await tx.update(devices).set({ configIssuedAt: now }).where(eq(devices.id, issued.device.id));
  return queued;
}

/**
 * `queueConfigEmail` for a device inserted in this transaction: its `configIssuedAt` is already
 * the moment it was issued, so the purchase path spends no second write on the row.
 */
export function queueNewDeviceConfigEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  { device, server }: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): Promise<string | null> {
  const link = downloadUrl(deps, device);
  return queueToCustomer(tx, deps, subscription, {
    template: "vpn-config",
    data: {
      planName: planName(subscription),
      oneTime: subscription.planType === "unlock",
      endsAt: subscription.expiresAt,
      slot: device.slot,
      deviceName: device.name ?? `Device ${device.slot}`,
      fileName: configFileName(deps.config.BRAND_NAME, device.slot),
      downloadUrl: link,
      clientConfig: renderClientConfig(device, server, deps.sealer),
      alternatePort: alternateOffer(link, server),
    },
  });
}
