import type { Executor } from "#server/db/client.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { addVpnServer } from "#server/domain/vpn/servers.ts";

/**
 * A VPN server for tests, with a fresh key: pools 10.{octet}.0.0/{ipv4Prefix} and fd{octet}::/64
 * (a /29 holds 5 devices, for tests of a full pool).
 */
export async function addTestVpnServer(
  executor: Executor,
  {
    name = "ng-lagos-1",
    octet = 66,
    ipv4Prefix = 16,
  }: { name?: string; octet?: number; ipv4Prefix?: number } = {},
) {
  const { server } = await addVpnServer(executor, {
    name,
    endpoint: "203.0.113.10:51820",
    publicKey: generateKeyPair().publicKey,
    ipv4Cidr: `10.${octet}.0.0/${ipv4Prefix}`,
    ipv6Cidr: `fd${octet}::/64`,
    dns: "1.1.1.1",
  });
  return server;
}
