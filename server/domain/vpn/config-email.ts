import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription, VpnServer } from "#server/db/schema/index.ts";
import { customerAddress, planName, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import type { OutgoingEmail } from "#server/domain/mail/outbox.ts";
import { configDeliveryEmail } from "#server/domain/mail/templates/config-delivery.tsx";
import type { Sealer } from "#server/secrets.ts";
import { configFileName, downloadUrl, renderClientConfig } from "./config-file.ts";

export type ConfigEmailDeps = CustomerEmailDeps & { sealer: Sealer };

const QR_CONTENT_ID = "config-qr";

/**
 * Queues, inside the caller's transaction, the e-mail that delivers a device's config: the
 * download link, the QR code inline, import steps and the .conf attached; for a device beyond
 * the first it is also the "device added, was this you?" notice. Nothing is queued when the
 * subscription has no valid customer e-mail (returns null). Call `services.mail.wake()` after the
 * commit; the outbox worker sends and retries, so a mail-server outage delays the message, never
 * drops it.
 */
export async function queueConfigEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  issued: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): Promise<string | null> {
  const email = await configEmail(deps, issued, subscription);
  return email ? deps.mail.enqueue(tx, email) : null;
}

type ConfigEmailSubscription = Pick<Subscription, "customerEmail" | "planId" | "expiresAt" | "planType">;

/** The config e-mail of a device, or null when the subscription has no valid customer e-mail. */
export async function configEmail(
  deps: Pick<ConfigEmailDeps, "config" | "sealer">,
  issued: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): Promise<OutgoingEmail | null> {
  const to = customerAddress(subscription);
  if (!to) return null;
  const { device, server } = issued;
  const fileName = configFileName(deps.config.BRAND_NAME, device.slot);
  const clientConfig = renderClientConfig(device, server, deps.sealer);
  const rendered = await configDeliveryEmail(deps.config, {
    planName: planName(subscription),
    oneTime: subscription.planType === "unlock",
    endsAt: subscription.expiresAt,
    slot: device.slot,
    deviceName: device.name ?? `Device ${device.slot}`,
    fileName,
    downloadUrl: downloadUrl(deps, device),
    qrContentId: QR_CONTENT_ID,
  });
  return {
    kind: "vpn-config",
    to,
    replyTo: deps.config.SUPPORT_EMAIL,
    ...rendered,
    attachments: [
      { filename: fileName, content: clientConfig, contentType: "text/plain; charset=utf-8" },
      // The same text as the success page's QR code, as a PNG: mail clients do not show SVG.
      {
        filename: "config-qr.png",
        content: clientConfig,
        contentType: "image/png",
        asQrCode: true,
        contentId: QR_CONTENT_ID,
      },
    ],
  };
}
