// Where a VPN server's traffic leaves for the internet: the public addresses the
// operator set (`npm run vpn -- set-exit`) or the node's agent reported. /check asks which
// server, if any, a visitor's address belongs to.
import { asc, sql } from "drizzle-orm";
import { canonicalIpAddress, exitAddressesSchema } from "#agent/node-api.ts";
import type { Executor } from "#server/db/client.ts";
import { vpnServers } from "#server/db/schema/index.ts";
import { InvalidVpnServer } from "./servers.ts";

/** Canonical exit addresses, without repeats; an address that is not one is a 400 naming it. */
export function parseExitAddresses(addresses: readonly string[]): string[] {
  const parsed = exitAddressesSchema.safeParse(addresses);
  if (!parsed.success) throw new InvalidVpnServer(`exit addresses: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

export interface ConnectionCheck {
  /** The visitor's address, canonical; null when the server could not tell it. */
  address: string | null;
  /** The VPN server the visitor comes through, or null when it is none of ours. */
  server: { name: string; region: string } | null;
}

/**
 * Whether a visitor's address is the exit address of one of our VPN servers, and whose. Every
 * server counts, also a disabled one: it takes no new devices, but its devices still connect.
 */
export async function checkConnection(executor: Executor, clientIp: string): Promise<ConnectionCheck> {
  const address = canonicalIpAddress(clientIp);
  if (!address) return { address: null, server: null };
  const [server] = await executor
    .select({ name: vpnServers.name, region: vpnServers.region })
    .from(vpnServers)
    .where(sql`${address} = any(${vpnServers.exitAddresses})`)
    .orderBy(asc(vpnServers.createdAt))
    .limit(1);
  return { address, server: server ?? null };
}
