import crypto from "node:crypto";
import { and, count, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { hashToken, type Sealer } from "#server/secrets.ts";
import { addressesAt, SERVER_ADDRESS_INDEX } from "./addresses.ts";
import { isWireGuardKey } from "./keys.ts";

// The control-plane side of the node agent (agent/): which peers a VPN server must carry, and
// what the node reports back. Nodes authenticate with `Authorization: Bearer <node token>`;
// only the token's hash is stored.

/** The VPN server a bearer node token belongs to, or undefined. */
export async function authenticateNode(
  executor: Executor,
  authorization: string | null,
): Promise<VpnServer | undefined> {
  const match = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(authorization?.trim() ?? "");
  if (!match) return undefined;
  const [server] = await executor
    .select()
    .from(vpnServers)
    .where(eq(vpnServers.nodeTokenHash, hashToken(match[1]!)));
  return server;
}

export interface DesiredPeer {
  publicKey: string;
  presharedKey: string;
  /** `ipv4/32` and `ipv6/128` of the device. */
  allowedIps: string[];
}

export interface PeerSet {
  /** Changes whenever any peer is added, removed or changed; the HTTP ETag. */
  version: string;
  server: { name: string; listenPort: number; ipv4: string; ipv6: string };
  peers: DesiredPeer[];
}

const USABLE = ["active", "past_due"] as const;

function listenPortOf(endpoint: string): number {
  return Number(endpoint.slice(endpoint.lastIndexOf(":") + 1));
}

/**
 * The peers a server must carry: live devices of usable (active or past-due, not yet expired)
 * subscriptions. The version is a hash of the stored rows, so an unchanged set is recognised
 * without unsealing any key (`knownVersion` → `{ unchanged: true }`).
 */
export async function desiredPeerSet(
  executor: Executor,
  sealer: Sealer,
  server: VpnServer,
  options: { now?: Date; knownVersion?: string | null } = {},
): Promise<PeerSet | { unchanged: true; version: string }> {
  const now = options.now ?? new Date();
  const rows = await executor
    .select({
      publicKey: devices.publicKey,
      presharedKeySealed: devices.presharedKeySealed,
      ipv4: devices.ipv4,
      ipv6: devices.ipv6,
    })
    .from(devices)
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(
      and(
        eq(devices.vpnServerId, server.id),
        isNull(devices.revokedAt),
        inArray(subscriptions.status, [...USABLE]),
        sql`${subscriptions.expiresAt} > ${now.toISOString()}`,
      ),
    )
    .orderBy(devices.publicKey);
  const hash = crypto.createHash("sha256");
  for (const row of rows) hash.update(`${row.publicKey} ${row.presharedKeySealed} ${row.ipv4} ${row.ipv6}\n`);
  const version = hash.digest("base64url").slice(0, 27);
  if (options.knownVersion === version) return { unchanged: true, version };
  const own = addressesAt(server.ipv4Cidr, server.ipv6Cidr, SERVER_ADDRESS_INDEX);
  return {
    version,
    server: {
      name: server.name,
      listenPort: listenPortOf(server.endpoint),
      ipv4: `${own.ipv4}/${server.ipv4Cidr.split("/")[1]}`,
      ipv6: `${own.ipv6}/${server.ipv6Cidr.split("/")[1]}`,
    },
    peers: rows.map((row) => ({
      publicKey: row.publicKey,
      presharedKey: sealer.unseal(row.presharedKeySealed),
      allowedIps: [`${row.ipv4}/32`, `${row.ipv6}/128`],
    })),
  };
}

const wireGuardKey = z.string().refine(isWireGuardKey, "must be a base64 WireGuard public key");

export const nodeStatusSchema = z.object({
  /** The public key of the node's interface (its private key never leaves the node). */
  publicKey: wireGuardKey,
  /** The peer-set version the node has applied. */
  appliedVersion: z.string().max(100).nullable().optional(),
  /** Peers whose handshake changed since the last report (unix seconds; 0 = never). */
  peers: z
    .array(
      z.object({
        publicKey: wireGuardKey,
        latestHandshake: z.number().int().min(0),
        rxBytes: z.number().int().min(0).optional(),
        txBytes: z.number().int().min(0).optional(),
      }),
    )
    .max(100_000)
    .default([]),
});

export type NodeStatus = z.infer<typeof nodeStatusSchema>;

/**
 * Records a node's report: last seen, applied version, its public key (registered on first
 * contact; a changed key is taken, since the node is the only holder of its private key) and the
 * latest handshake of each peer, which `countActiveDevices` reads.
 */
export async function recordNodeStatus(
  executor: Executor,
  server: VpnServer,
  status: NodeStatus,
  now = new Date(),
): Promise<{ publicKeyChanged: boolean; handshakesRecorded: number }> {
  const publicKeyChanged = server.publicKey !== status.publicKey;
  await executor
    .update(vpnServers)
    .set({
      lastSeenAt: now,
      publicKey: status.publicKey,
      appliedPeerVersion: status.appliedVersion ?? null,
    })
    .where(eq(vpnServers.id, server.id));
  let handshakesRecorded = 0;
  const handshakes = status.peers.filter((peer) => peer.latestHandshake > 0);
  for (let start = 0; start < handshakes.length; start += 1000) {
    const chunk = handshakes.slice(start, start + 1000);
    const values = sql.join(
      chunk.map(
        (peer) =>
          sql`(${peer.publicKey}, ${new Date(peer.latestHandshake * 1000).toISOString()}::timestamptz)`,
      ),
      sql`, `,
    );
    const result = (await executor.execute(sql`
      update devices d set last_handshake_at = v.at
      from (values ${values}) as v(public_key, at)
      where d.public_key = v.public_key and d.vpn_server_id = ${server.id}
        and (d.last_handshake_at is null or d.last_handshake_at < v.at)`)) as unknown as {
      rowCount?: number;
      affectedRows?: number;
    };
    handshakesRecorded += result.rowCount ?? result.affectedRows ?? 0;
  }
  return { publicKeyChanged, handshakesRecorded };
}

/** WireGuard re-handshakes every 2 minutes while traffic flows; 3 minutes leaves slack. */
export const ACTIVE_HANDSHAKE_WINDOW_MS = 180_000;

/** Devices of a subscription connected right now (a handshake reported within the window). */
export async function countActiveDevices(
  executor: Executor,
  subscriptionId: string,
  now = new Date(),
): Promise<number> {
  const [row] = await executor
    .select({ value: count() })
    .from(devices)
    .where(
      and(
        eq(devices.subscriptionId, subscriptionId),
        isNull(devices.revokedAt),
        gte(devices.lastHandshakeAt, new Date(now.getTime() - ACTIVE_HANDSHAKE_WINDOW_MS)),
      ),
    );
  return Number(row?.value ?? 0);
}
