import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription, VpnServer } from "#server/db/schema/index.ts";
import { planName, queueToCustomer, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import type { Sealer } from "#server/secrets.ts";
import { configFileName, downloadUrl, renderClientConfig } from "./config-file.ts";

export type ConfigEmailDeps = CustomerEmailDeps & { sealer: Sealer };

type ConfigEmailSubscription = Pick<Subscription, "customerEmail" | "planId" | "expiresAt" | "planType">;

/**
 * Queues, inside the caller's transaction, the e-mail that delivers a device's config: the
 * download link, the QR code inline, import steps and the .conf attached; for a device beyond
 * the first it is also the "device added, was this you?" notice. Nothing is queued when the
 * subscription has no valid customer e-mail (returns null). Call `services.mail.wake()` after the
 * commit; the outbox worker renders and sends it and retries, so a mail-server outage delays the
 * message, never drops it.
 */
export function queueConfigEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  { device, server }: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): Promise<string | null> {
  return queueToCustomer(tx, deps, subscription, {
    template: "vpn-config",
    data: {
      planName: planName(subscription),
      oneTime: subscription.planType === "unlock",
      endsAt: subscription.expiresAt,
      slot: device.slot,
      deviceName: device.name ?? `Device ${device.slot}`,
      fileName: configFileName(deps.config.BRAND_NAME, device.slot),
      downloadUrl: downloadUrl(deps, device),
      clientConfig: renderClientConfig(device, server, deps.sealer),
    },
  });
}
