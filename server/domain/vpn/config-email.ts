import { z } from "zod";
import { findPlan } from "#app/lib/plans.ts";
import { formatLongDate } from "#app/lib/format.ts";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, Subscription, VpnServer } from "#server/db/schema/index.ts";
import type { OutgoingEmail } from "#server/domain/mail/outbox.ts";
import type { Sealer } from "#server/secrets.ts";
import { configFileName, downloadUrl, renderClientConfig } from "./config-file.ts";

export interface ConfigEmailDeps {
  config: Pick<Config, "BRAND_NAME" | "PUBLIC_URL" | "SUPPORT_EMAIL">;
  sealer: Sealer;
  mail: { enqueue(executor: Executor, email: OutgoingEmail): Promise<string> };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * Queues, inside the caller's transaction, the e-mail that delivers a device's config: the
 * download link, import steps and the .conf attached. Nothing is queued when the subscription
 * has no valid customer e-mail (returns null). Call `services.mail.wake()` after the commit; the
 * outbox worker sends and retries, so a mail-server outage delays the message, never drops it.
 */
export async function queueConfigEmail(
  tx: Executor,
  deps: ConfigEmailDeps,
  issued: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): Promise<string | null> {
  const email = configEmail(deps, issued, subscription);
  return email ? deps.mail.enqueue(tx, email) : null;
}

type ConfigEmailSubscription = Pick<Subscription, "customerEmail" | "planId" | "expiresAt" | "planType">;

const emailAddress = z.email();

/** The config e-mail of a device, or null when the subscription has no valid customer e-mail. */
export function configEmail(
  deps: Pick<ConfigEmailDeps, "config" | "sealer">,
  issued: { device: Device; server: VpnServer },
  subscription: ConfigEmailSubscription,
): OutgoingEmail | null {
  if (!emailAddress.safeParse(subscription.customerEmail).success) return null;
  const brand = deps.config.BRAND_NAME;
  const { device, server } = issued;
  const fileName = configFileName(brand, device.slot);
  const url = downloadUrl(deps, device);
  const planName = findPlan(subscription.planId)?.name ?? subscription.planType;
  const until = subscription.planType === "unlock" ? "Access until" : "Renews on";
  const steps = [
    "1. Install WireGuard from the official app store (iOS App Store, Android Play Store) or wireguard.com for Windows, Mac and Linux.",
    `2. Import the attached ${fileName} with Add Tunnel (or "Import tunnel(s) from file"), or download it again from the link above.`,
    "3. Toggle the connection on and visit Nigerian sites.",
  ];
  const text = [
    `Your ${brand} VPN configuration is ready.`,
    "",
    `Plan: ${planName}`,
    `${until}: ${formatLongDate(subscription.expiresAt)}`,
    `Device slot: ${device.slot}`,
    "",
    `Download your config: ${url}`,
    "",
    "How to connect:",
    ...steps,
    "",
    "Keep this e-mail private: the file and the link are the key to your connection.",
    `Need help? Reply to this e-mail or write to ${deps.config.SUPPORT_EMAIL}.`,
    "",
    `The ${brand} team`,
  ].join("\n");
  const html = [
    `<p>Your ${escapeHtml(brand)} VPN configuration is ready.</p>`,
    `<p>Plan: ${escapeHtml(planName)}<br>${until}: ${escapeHtml(formatLongDate(subscription.expiresAt))}<br>Device slot: ${device.slot}</p>`,
    `<p><a href="${escapeHtml(url)}">Download ${escapeHtml(fileName)}</a></p>`,
    `<p>How to connect:</p><ol>${steps.map((step) => `<li>${escapeHtml(step.replace(/^\d\. /, ""))}</li>`).join("")}</ol>`,
    "<p>Keep this e-mail private: the file and the link are the key to your connection.</p>",
    `<p>Need help? Reply to this e-mail or write to <a href="mailto:${escapeHtml(deps.config.SUPPORT_EMAIL)}">${escapeHtml(deps.config.SUPPORT_EMAIL)}</a>.</p>`,
  ].join("\n");
  return {
    kind: "vpn-config",
    to: subscription.customerEmail!,
    replyTo: deps.config.SUPPORT_EMAIL,
    subject: `Your ${brand} VPN config (${fileName})`,
    text,
    html,
    attachments: [
      {
        filename: fileName,
        content: renderClientConfig(device, server, deps.sealer),
        contentType: "text/plain; charset=utf-8",
      },
    ],
  };
}
