import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import type { DesiredPeer, NodeServer, PeerAnswer } from "#agent/node-api.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";
import { addressesAt, SERVER_ADDRESS_INDEX } from "./addresses.ts";
import { currentPeerVersion, peerChangesSince, type PeerChangeFeed } from "./peer-changes.ts";
import { usableSubscription } from "./usable.ts";

// What a VPN server's node agent is told to carry (GET /api/nodes/peers, contract in
// agent/node-api.ts): the live devices of usable subscriptions on that server, whole or as the
// change since the version the node applied, held until there is one (decision 046).

export function nodeServerOf(server: VpnServer): NodeServer {
  const own = addressesAt(server.ipv4Cidr, server.ipv6Cidr, SERVER_ADDRESS_INDEX);
  return {
    name: server.name,
    listenPort: Number(server.endpoint.slice(server.endpoint.lastIndexOf(":") + 1)),
    ipv4: `${own.ipv4}/${server.ipv4Cidr.split("/")[1]}`,
    ipv6: `${own.ipv6}/${server.ipv6Cidr.split("/")[1]}`,
    ipv4Pool: server.ipv4Cidr,
    ipv6Pool: server.ipv6Cidr,
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
): Promise<PeerAnswer> {
  const version = await currentPeerVersion(executor, server.id);
  const peers = await livePeers(executor, sealer, server, now);
  return { kind: "full", version: String(version), server: nodeServerOf(server), peers };
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
  deps: { db: Executor; sealer: Sealer; peerChanges: PeerChangeFeed },
  server: VpnServer,
  request: PeerPollRequest,
  clock: () => Date = () => new Date(),
): Promise<PeerPoll> {
  const { db, sealer } = deps;
  if (request.since === undefined) {
    const version = String(await currentPeerVersion(db, server.id));
    if (request.knownVersion === version) return { unchanged: true, version };
    return fullPeerSet(db, sealer, server, clock());
  }
  const waitMs = (request.waitSeconds ?? 0) * 1000;
  const deadline = Date.now() + waitMs;
  const watch = waitMs > 0 ? deps.peerChanges.watch(server.id) : undefined;
  try {
    for (;;) {
      const changes = await peerChangesSince(db, server.id, request.since);
      if (changes.state === "unknown") return await fullPeerSet(db, sealer, server, clock());
      if (changes.state === "changed") {
        const upserts = await livePeers(db, sealer, server, clock(), changes.publicKeys);
        const live = new Set(upserts.map((peer) => peer.publicKey));
        return {
          kind: "changes",
          since: request.since,
          version: String(changes.version),
          server: nodeServerOf(server),
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
