import { wireGuardKeySchema } from "#agent/node-api.ts";
import type { Config } from "#server/config.ts";
import type { Device, VpnServer } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import type { Sealer } from "#server/secrets.ts";
import { configServerSchema } from "./server-fields.ts";

export type ClientConfigDevice = Pick<Device, "privateKeySealed" | "presharedKeySealed" | "ipv4" | "ipv6">;

/**
 * A config that cannot be issued because a stored value breaks its grammar: the server's settings
 * fail `configServerSchema`, or a value holds a control character. The message names the server
 * and the setting (never its value), for the operator.
 */
export class ConfigRefused extends DomainError {
  constructor(serverName: string, setting: string) {
    super(
      "unavailable",
      "Configuration unavailable",
      `The config cannot be issued: the ${setting} setting of VPN server ${JSON.stringify(serverName.slice(0, 63))} is not valid. Please contact support.`,
    );
  }
}

/**
 * C0 and C1 controls, DEL, Unicode format characters (bidi overrides too), line and paragraph
 * separators, and unpaired surrogates.
 */
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The WireGuard client config of one device; the same text feeds the .conf and the QR code. */
export function renderClientConfig(device: ClientConfigDevice, server: VpnServer, sealer: Sealer): string {
  if (!server.publicKey) throw new Error(`VPN server ${server.name} has no registered public key yet`);
  const checked = configServerSchema.safeParse(server);
  if (!checked.success) throw new ConfigRefused(server.name, String(checked.error.issues[0]!.path[0]));
  const settings = checked.data;
  // Defence in depth: whatever the schemas let through, no value may start a line of its own.
  const line = (key: string, value: string) => {
    if (CONTROL.test(value)) throw new ConfigRefused(server.name, key);
    return `${key} = ${value}`;
  };
  const keyLine = (key: string, value: string) => {
    if (!wireGuardKeySchema.safeParse(value).success) throw new ConfigRefused(server.name, key);
    return line(key, value);
  };
  return [
    "[Interface]",
    keyLine("PrivateKey", sealer.unseal(device.privateKeySealed)),
    line("Address", `${device.ipv4}/32, ${device.ipv6}/128`),
    line("DNS", settings.dns),
    "",
    "[Peer]",
    line("PublicKey", settings.publicKey),
    keyLine("PresharedKey", sealer.unseal(device.presharedKeySealed)),
    line("Endpoint", settings.endpoint),
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
