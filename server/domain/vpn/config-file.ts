import type { Config } from "#server/config.ts";
import type { Device, VpnServer } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";

export type ClientConfigDevice = Pick<Device, "privateKeySealed" | "presharedKeySealed" | "ipv4" | "ipv6">;

/** The WireGuard client config of one device; the same text feeds the .conf and the QR code. */
export function renderClientConfig(device: ClientConfigDevice, server: VpnServer, sealer: Sealer): string {
  if (!server.publicKey) throw new Error(`VPN server ${server.name} has no registered public key yet`);
  return [
    "[Interface]",
    `PrivateKey = ${sealer.unseal(device.privateKeySealed)}`,
    `Address = ${device.ipv4}/32, ${device.ipv6}/128`,
    `DNS = ${server.dns}`,
    "",
    "[Peer]",
    `PublicKey = ${server.publicKey}`,
    `PresharedKey = ${sealer.unseal(device.presharedKeySealed)}`,
    `Endpoint = ${server.endpoint}`,
    "AllowedIPs = 0.0.0.0/0, ::/0",
    "PersistentKeepalive = 25",
    "",
  ].join("\n");
}

/** One rule for the browser's save name and the server's download header and attachment. */
export { configFileName } from "#app/lib/config-file-name.ts";

/** The capability URL of a device's config (`GET /api/configs/{token}`); only the token's hash is looked up. */
export function downloadUrl(
  services: { config: Pick<Config, "PUBLIC_URL">; sealer: Sealer },
  device: Pick<Device, "downloadTokenSealed">,
): string {
  const base = services.config.PUBLIC_URL.replace(/\/+$/, "");
  return `${base}/api/configs/${services.sealer.unseal(device.downloadTokenSealed)}`;
}
