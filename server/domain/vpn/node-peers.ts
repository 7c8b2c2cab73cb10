import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import type { DesiredPeer, NodeServer, PeerAnswer } from "#agent/node-api.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";
import { endpointPort, nodeTunnelAddresses } from "./config-file.ts";
import { currentPeerVersion, peerChangesSince, type PeerChangeFeed } from "./peer-changes.ts";
import { usableSubscription } from "./usable.ts";

// What a VPN server's node agent is told to carry (GET /api/nodes/peers, contract in
// agent/node-api.ts): the live devices of usable subscriptions on that server, whole or as the
// change since the version the node applied, held until there is one.

/** What the node needs of its server; `dnsCheckZone` is VPN_DNS_CHECK_ZONE. */
export function nodeServerOf(server: VpnServer, dnsCheckZone?: string): NodeServer {
  const own = nodeTunnelAddresses(server);
  return {
    name: server.name,
    listenPort: endpointPort(server.endpoint),
    ipv4: `${own.ipv4}/${server.ipv4Cidr.split("/")[1]}`,
    ipv6: `${own.ipv6}/${server.ipv6Cidr.split("/")[1]}`,
    ipv4Pool: server.ipv4Cidr,
    ipv6Pool: server.ipv6Cidr,
    mtu: server.clientMtu,
    alternatePorts: server.alternatePorts,
    resolver: server.nodeResolver,
    settingsVersion: server.settingsVersion,
    ...(dnsCheckZone === undefined ? {} : { dnsCheckZone }),
  };
}

/**
 * Live peers of usable subscriptions on the server, none while it is disabled (decision 078; its
 * status is read here, not from `server`, which a held poll read before it changed); only those
 * with `publicKeys` when given.
 */
async function livePeers(
  executor: Executor,
  sealer: Sealer,
  server: VpnServer,
  now: Date,
  publicKeys?: string[],
): Promise<DesiredPeer[]> {
  const rows = await executor
    .select({
      publicKey: devices.publicKey,
      presharedKeySealed: devices.presharedKeySealed,
      ipv4: devices.ipv4,
      ipv6: devices.ipv6,
    })
    .from(devices)
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .where(
      and(
        eq(devices.vpnServerId, server.id),
        ne(vpnServers.status, "disabled"),
        isNull(devices.revokedAt),
        usableSubscription(now),
        publicKeys ? inArray(devices.publicKey, publicKeys) : undefined,
      ),
    )
    .orderBy(devices.publicKey);
  return rows.map((row) => ({
    publicKey: row.publicKey,
    presharedKey: sealer.unseal(row.presharedKeySealed),
    allowedIps: [`${row.ipv4}/32`, `${row.ipv6}/128`],
  }));
}

/**
 * Every peer the server must carry. The version is read first: the peers read after it are at
 * least that new, and a change they already include is sent again later, harmlessly.
 */
export async function fullPeerSet(
  executor: Executor,
  sealer: Sealer,
  server: VpnServer,
  now: Date,
  options: { dnsCheckZone?: string } = {},
): Promise<PeerAnswer> {
  const version = await currentPeerVersion(executor, server.id);
  const peers = await livePeers(executor, sealer, server, now);
  const current = await reread(executor, server);
  return {
    kind: "full",
    version: String(version),
    server: nodeServerOf(current, options.dnsCheckZone),
    peers,
  };
}

/**
 * The server's row as it is now: a held poll began with the row of its start, and a change of the
 * server's own settings (set-mtu, set-endpoint…) is what woke it. Read after the version, so the
 * settings are at least as new as it.
 */
async function reread(executor: Executor, server: VpnServer): Promise<VpnServer> {
  const [row] = await executor.select().from(vpnServers).where(eq(vpnServers.id, server.id));
  return row ?? server;
}

export type PeerPoll = PeerAnswer | { unchanged: true; version: string };

export interface PeerPollRequest {
  /** The version the node applied: answer only what changed since. */
  since?: string;
  /** With `since`: hold the request this long for a change. */
  waitSeconds?: number;
  /** Without `since`: the version from If-None-Match, answered "unchanged" when current. */
  knownVersion?: string | null;
  signal?: AbortSignal;
}

export async function pollPeers(
  deps: { db: Executor; sealer: Sealer; peerChanges: PeerChangeFeed; dnsCheckZone?: string },
  server: VpnServer,
  request: PeerPollRequest,
  clock: () => Date = () => new Date(),
): Promise<PeerPoll> {
  const { db, sealer } = deps;
  const options = { dnsCheckZone: deps.dnsCheckZone };
  if (request.since === undefined) {
    const version = String(await currentPeerVersion(db, server.id));
    if (request.knownVersion === version) return { unchanged: true, version };
    return fullPeerSet(db, sealer, server, clock(), options);
  }
  const waitMs = (request.waitSeconds ?? 0) * 1000;
  const deadline = Date.now() + waitMs;
  const watch = waitMs > 0 ? deps.peerChanges.watch(server.id) : undefined;
  try {
    for (;;) {
      const changes = await peerChangesSince(db, server.id, request.since);
      if (changes.state === "unknown") return await fullPeerSet(db, sealer, server, clock(), options);
      if (changes.state === "changed") {
        const upserts = await livePeers(db, sealer, server, clock(), changes.publicKeys);
        const live = new Set(upserts.map((peer) => peer.publicKey));
        return {
          kind: "changes",
          since: request.since,
          version: String(changes.version),
          server: nodeServerOf(await reread(db, server), deps.dnsCheckZone),
          upserts,
          removals: changes.publicKeys.filter((key) => !live.has(key)),
        };
      }
      const remaining = deadline - Date.now();
      if (!watch || remaining <= 0 || !(await watch.changed(remaining, request.signal)))
        return { unchanged: true, version: String(changes.version) };
    }
  } finally {
    watch?.stop();
  }
}
