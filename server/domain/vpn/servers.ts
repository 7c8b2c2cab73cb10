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
  /** Omit it to let the node's agent register the key it generates; until then the server takes no devices. */
  publicKey?: string | null;
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
  if (input.publicKey != null && !isWireGuardKey(input.publicKey))
    throw new InvalidVpnServer("publicKey is not a WireGuard public key");
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(input.name))
    throw new InvalidVpnServer("name must be lower-case letters, digits and dashes, such as ng-lagos-1");
  if (!isValidPool(input.ipv4Cidr, 4))
    throw new InvalidVpnServer("ipv4 must be an IPv4 CIDR such as 10.66.0.0/16");
  if (!isValidPool(input.ipv6Cidr, 6))
    throw new InvalidVpnServer("ipv6 must be an IPv6 CIDR such as fd66::/64");
  if (!/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(input.endpoint))
    throw new InvalidVpnServer("endpoint must be host:port");
  const [taken] = await executor
    .select({ id: vpnServers.id })
    .from(vpnServers)
    .where(eq(vpnServers.name, input.name));
  if (taken) throw new InvalidVpnServer(`a VPN server named ${input.name} already exists`);
  const nodeToken = generateToken(32);
  const [server] = await executor
    .insert(vpnServers)
    .values({ ...input, region: input.region ?? "ng-lagos", nodeTokenHash: hashToken(nodeToken) })
    .returning();
  return { server: server!, nodeToken };
}

/**
 * The active server (with a registered public key) with the fewest live devices, locked for the caller's transaction so
 * concurrent allocations on it queue up instead of racing for the same address.
 */
export async function lockLeastLoadedServer(executor: Executor): Promise<VpnServer | undefined> {
  // One round trip: pick by the live-device count (from the partial index on live devices), then
  // lock. The pick reads the statement's snapshot; it is a load heuristic, the lock is what
  // serialises address allocation on the chosen server.
  const [server] = await executor
    .select()
    .from(vpnServers)
    .where(
      eq(
        vpnServers.id,
        sql`(select s.id from vpn_servers s
             where s.active and s.public_key is not null
             order by (select count(*) from devices d where d.vpn_server_id = s.id and d.revoked_at is null), s.created_at
             limit 1)`,
      ),
    )
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

/** A new node token for an existing server (the old one stops working); returned once. */
export async function rotateNodeToken(
  executor: Executor,
  name: string,
): Promise<{ server: VpnServer; nodeToken: string } | undefined> {
  const nodeToken = generateToken(32);
  const [server] = await executor
    .update(vpnServers)
    .set({ nodeTokenHash: hashToken(nodeToken) })
    .where(eq(vpnServers.name, name))
    .returning();
  return server ? { server, nodeToken } : undefined;
}

export async function listVpnServers(executor: Executor) {
  const live = executor
    .select({ serverId: devices.vpnServerId, count: sql<number>`count(*)::int`.as("count") })
    .from(devices)
    .where(sql`${devices.revokedAt} is null`)
    .groupBy(devices.vpnServerId)
    .as("live");
  return executor
    .select({
      name: vpnServers.name,
      region: vpnServers.region,
      endpoint: vpnServers.endpoint,
      publicKey: vpnServers.publicKey,
      ipv4Cidr: vpnServers.ipv4Cidr,
      ipv6Cidr: vpnServers.ipv6Cidr,
      active: vpnServers.active,
      lastSeenAt: vpnServers.lastSeenAt,
      liveDevices: sql<number>`coalesce(${live.count}, 0)`,
    })
    .from(vpnServers)
    .leftJoin(live, eq(live.serverId, vpnServers.id))
    .orderBy(asc(vpnServers.createdAt));
}
