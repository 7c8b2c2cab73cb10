import { asc, eq, sql } from "drizzle-orm";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { isValidPool } from "./addresses.ts";
import { generateKeyPair, isWireGuardKey } from "./keys.ts";

export interface NewVpnServer {
  name: string;
  region?: string;
  endpoint: string;
  publicKey: string;
  ipv4Cidr: string;
  ipv6Cidr: string;
  dns: string;
}

export class InvalidVpnServer extends Error {}

/** Registers a VPN server; the node token is returned once and only its hash is stored. */
export async function addVpnServer(
  executor: Executor,
  input: NewVpnServer,
): Promise<{ server: VpnServer; nodeToken: string }> {
  if (!isWireGuardKey(input.publicKey)) throw new InvalidVpnServer("publicKey is not a WireGuard public key");
  if (!isValidPool(input.ipv4Cidr, 4))
    throw new InvalidVpnServer("ipv4 must be an IPv4 CIDR such as 10.66.0.0/16");
  if (!isValidPool(input.ipv6Cidr, 6))
    throw new InvalidVpnServer("ipv6 must be an IPv6 CIDR such as fd66::/64");
  if (!/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(input.endpoint))
    throw new InvalidVpnServer("endpoint must be host:port");
  const nodeToken = generateToken(32);
  const [server] = await executor
    .insert(vpnServers)
    .values({ ...input, region: input.region ?? "ng-lagos", nodeTokenHash: hashToken(nodeToken) })
    .returning();
  return { server: server!, nodeToken };
}

/**
 * The active server with the fewest live devices, locked for the caller's transaction so
 * concurrent allocations on it queue up instead of racing for the same address.
 */
export async function lockLeastLoadedServer(executor: Executor): Promise<VpnServer | undefined> {
  const live = executor
    .select({ serverId: devices.vpnServerId, count: sql<number>`count(*)`.as("count") })
    .from(devices)
    .where(sql`${devices.revokedAt} is null`)
    .groupBy(devices.vpnServerId)
    .as("live");
  const [candidate] = await executor
    .select({ id: vpnServers.id })
    .from(vpnServers)
    .leftJoin(live, eq(live.serverId, vpnServers.id))
    .where(eq(vpnServers.active, true))
    .orderBy(sql`coalesce(${live.count}, 0)`, asc(vpnServers.createdAt))
    .limit(1);
  if (!candidate) return undefined;
  const [server] = await executor
    .select()
    .from(vpnServers)
    .where(eq(vpnServers.id, candidate.id))
    .for("update");
  return server;
}

/**
 * On a fresh install there is no VPN server yet; create one from config so the purchase flow
 * works out of the box. Its private key is not kept: a real node generates its own.
 */
export async function ensureDevelopmentServer(
  executor: Executor,
  config: Config,
): Promise<VpnServer | undefined> {
  const [existing] = await executor.select({ id: vpnServers.id }).from(vpnServers).limit(1);
  if (existing) return undefined;
  const { server } = await addVpnServer(executor, {
    name: "ng-lagos-dev",
    region: "ng-lagos",
    endpoint: config.VPN_ENDPOINT,
    publicKey: generateKeyPair().publicKey,
    ipv4Cidr: "10.66.0.0/16",
    ipv6Cidr: "fd66::/64",
    dns: config.VPN_DNS,
  });
  return server;
}
