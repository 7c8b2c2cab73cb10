import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions, vpnPeerVersions, vpnServers } from "#server/db/schema/index.ts";
import { usableSubscription } from "./usable.ts";

/** How a VPN server's node keeps up (metrics and the node-silent alert, decision 083). */
export interface NodeHealth {
  serverId: string;
  name: string;
  active: boolean;
  /** Peers the node must carry: live devices of usable subscriptions (as GET /api/nodes/peers sends). */
  desiredPeers: number;
  /** The server's current peer-set version, and the one its agent last reported applied. */
  desiredVersion: number;
  appliedVersion: number | null;
  /** Null while its agent never reported (a server being set up, or the demo's development server). */
  lastSeenAt: Date | null;
}

export async function nodeHealth(executor: Executor, now: Date): Promise<NodeHealth[]> {
  const servers = await executor
    .select({
      serverId: vpnServers.id,
      name: vpnServers.name,
      active: vpnServers.active,
      desiredVersion: vpnPeerVersions.version,
      appliedVersion: vpnServers.appliedPeerVersion,
      lastSeenAt: vpnServers.lastSeenAt,
    })
    .from(vpnServers)
    .leftJoin(vpnPeerVersions, eq(vpnPeerVersions.serverId, vpnServers.id))
    .orderBy(asc(vpnServers.createdAt));
  const carried = await executor
    .select({ serverId: devices.vpnServerId, peers: count() })
    .from(devices)
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(and(isNull(devices.revokedAt), usableSubscription(now)))
    .groupBy(devices.vpnServerId);
  const peersOf = new Map(carried.map((row) => [row.serverId, Number(row.peers)]));
  return servers.map((server) => ({
    ...server,
    desiredPeers: peersOf.get(server.serverId) ?? 0,
    desiredVersion: server.desiredVersion ?? 0,
    appliedVersion: server.appliedVersion === null ? null : Number(server.appliedVersion),
  }));
}
