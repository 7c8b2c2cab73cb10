import { and, eq, sql } from "drizzle-orm";
import type { Config } from "#server/config.ts";
import { queryRows, type Executor } from "#server/db/client.ts";
import { vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { generateKeyPair } from "./keys.ts";
import { addVpnServer } from "./servers.ts";

// The demo's development server (decisions 060, 094, 095): a placeholder endpoint that lets a
// fresh store sell at once, until a real node registers; retired when the store goes live.

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
    clientMtu: config.VPN_CLIENT_MTU,
    development: true,
  });
  return server;
}

/**
 * Live mode: the demo's development server takes no new devices (it is drained,
 * so its rehearsal devices can still be moved or revoked), and every start names what is left
 * of it, until the operator removes it.
 */
export async function retireDevelopmentServers(
  executor: Executor,
): Promise<Array<{ name: string; liveDevices: number; retiredNow: boolean }>> {
  const retired = await executor
    .update(vpnServers)
    .set({ status: "draining" })
    .where(and(eq(vpnServers.development, true), eq(vpnServers.status, "active")))
    .returning({ id: vpnServers.id });
  const now = new Set(retired.map((row) => row.id));
  const left = await executor
    .select({ id: vpnServers.id, name: vpnServers.name, liveDevices: vpnServers.liveDevices })
    .from(vpnServers)
    .where(eq(vpnServers.development, true));
  return left.map((row) => ({ name: row.name, liveDevices: row.liveDevices, retiredNow: now.has(row.id) }));
}

/** Whether a real server's node has registered its key (the development server then retires). */
export async function realNodeRegistered(executor: Executor): Promise<boolean> {
  const rows = await queryRows(
    executor,
    sql`select 1 from vpn_servers where not development and public_key is not null limit 1`,
  );
  return rows.length > 0;
}
