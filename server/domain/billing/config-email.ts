import type { Transaction } from "#server/db/client.ts";
import type { Device, VpnServer } from "#server/db/schema/index.ts";
import { configFileName, renderClientConfig } from "#server/domain/vpn/config-file.ts";
import type { AppServices } from "#server/services.ts";

/**
 * Queues the config e-mail in the caller's transaction (it is sent only if the fulfilment
 * commits). A stand-in until server/domain/vpn offers `queueConfigEmail`; the integrator
 * swaps this one function for it.
 */
export async function queueConfigEmail(
  tx: Transaction,
  services: Pick<AppServices, "config" | "sealer" | "mail">,
  input: { to: string; device: Device; server: VpnServer; downloadToken: string; planName: string },
): Promise<void> {
  const { config } = services;
  const brand = config.BRAND_NAME;
  const fileName = configFileName(brand, input.device.slot);
  const downloadUrl = `${config.PUBLIC_URL}/api/configs/${input.downloadToken}`;
  const text = [
    `Thank you for choosing ${brand} (${input.planName}).`,
    "",
    `Your WireGuard config for device ${input.device.slot} is attached as ${fileName}.`,
    `You can also download it here: ${downloadUrl}`,
    "",
    "1. Install WireGuard from your app store or wireguard.com.",
    "2. Open it, choose Add Tunnel and import the .conf file.",
    "3. Switch the tunnel on and visit Nigerian sites.",
    "",
    `Need help? Reply to this e-mail or write to ${config.SUPPORT_EMAIL}.`,
  ].join("\n");
  await services.mail.enqueue(tx, {
    kind: "vpn-config",
    to: input.to,
    replyTo: config.SUPPORT_EMAIL,
    subject: `Your ${brand} VPN config (device ${input.device.slot})`,
    text,
    attachments: [
      {
        filename: fileName,
        content: renderClientConfig(input.device, input.server, services.sealer),
        contentType: "text/plain",
      },
    ],
  });
}
