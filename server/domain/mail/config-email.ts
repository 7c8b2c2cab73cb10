import { configFileName } from "#core/config-file-name.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription, VpnServer } from "#server/db/schema/index.ts";
import { alternateOffer, downloadUrl, renderClientConfig } from "#server/domain/vpn/config-file.ts";
import type { Sealer } from "#server/secrets.ts";
import { planName, queueToCustomer, type CustomerEmailDeps } from "./customer-emails.ts";

export type ConfigEmailDeps = CustomerEmailDeps & { sealer: Sealer };

type ConfigEmailSubscription = Pick<Subscription, "customerEmail" | "planId" | "expiresAt" | "planType">;

/**
 * Queues, inside the caller's transaction, the e-mail that delivers a device's config: the
 * download link, the QR code inline, import steps and the .conf attached, and the same device on
 * its server's alternate port; for a device beyond the first it is also the
 * "device added, was this you?" notice. It carries the device's secrets, so it needs the sealer.
 * Nothing is queued when the subscription has no valid customer e-mail (returns null). Call
 * `services.mail.wake()` after the commit; the outbox worker renders and sends it and retries, so
 * a mail-server outage delays the message, never drops it. The caller records that the config
 * was handed out (`configIssuedAt`) unless the device was inserted in this transaction.
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
      ...configOf(deps, { device, server }),
    },
  });
}

/** The device's config as its e-mails carry it: file name, link, the `.conf` text, the alternate port. */
function configOf(deps: ConfigEmailDeps, { device, server }: { device: Device; server: VpnServer }) {
  const link = downloadUrl(deps, device);
  return {
    fileName: configFileName(deps.config.BRAND_NAME, device.slot),
    downloadUrl: link,
    clientConfig: renderClientConfig(device, server, deps.sealer),
    alternatePort: alternateOffer(link, server),
  };
}

/**
 * Staff moved the device to `server` (vpn/device-moves.ts): the notice carries its new config,
 * attached and as a QR code, with the advice to switch the old tunnel off before importing it.
 */
export function queueRelocatedEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  { device, server }: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
  details: { location: string; at: Date },
): Promise<string | null> {
  return queueToCustomer(tx, deps, subscription, {
    template: "device-relocated",
    data: {
      deviceName: device.name ?? `Device ${device.slot}`,
      planName: planName(subscription),
      at: details.at,
      location: details.location,
      config: configOf(deps, { device, server }),
    },
  });
}
