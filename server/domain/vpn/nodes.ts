import { and, count, eq, gte, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import { clientMtuSchema, type nodeStatusSchema } from "#agent/node-api.ts";
import { isUniqueViolation, type Executor } from "#server/db/client.ts";
import { devices, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { conflict } from "#server/domain/errors.ts";
import { hashToken } from "#server/secrets.ts";
import { configAlternatePorts, configMtu, configNodeResolver } from "./config-file.ts";
import { recordDnsChecks } from "./dns-checks.ts";
import { recordStreamingResults } from "./streaming-checks.ts";
import { recordPeerTransfers, type PeerTransfer } from "./transfer.ts";

// The control-plane side of the node agent (agent/): who the node is and what it reports back
// (the peers it must carry: node-peers.ts). Nodes authenticate with
// `Authorization: Bearer <node token>`; only the token's hash is stored.

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

/** A node's report, as parsed with the contract's `nodeStatusSchema`. */
export type NodeStatus = z.output<typeof nodeStatusSchema>;

/**
 * Records a node's report: last seen, applied version, its public key (registered on first
 * contact; a changed key is taken, since the node is the only holder of its private key), its
 * exit addresses when it reports them, the latest handshake of each peer, which
 * `countActiveDevices` reads (a device's first handshake activates it), and each peer's
 * transfer counters, added to its device's figure for the period (transfer.ts), and the /check
 * names its resolver was asked for (dns-checks.ts), and its streaming checks (streaming-checks.ts).
 */
export async function recordNodeStatus(
  executor: Executor,
  server: VpnServer,
  status: NodeStatus,
  now = new Date(),
): Promise<{ publicKeyChanged: boolean; handshakesRecorded: number }> {
  const publicKeyChanged = server.publicKey !== status.publicKey;
  const settings = settingsReported(server, status, now);
  try {
    await executor
      .update(vpnServers)
      .set({
        lastSeenAt: now,
        publicKey: status.publicKey,
        appliedPeerVersion: status.appliedVersion ?? null,
        appliedPeerCount: status.appliedPeers ?? null,
        // A node that reports its exit addresses overrides what the operator set (decision 069).
        ...(status.exitAddresses === undefined ? {} : { exitAddresses: status.exitAddresses }),
        ...settings.columns,
        // Configs handed out before name the old key (or the MTU, a port or the resolver before
        // the node applied the new ones): their owners are told.
        ...((publicKeyChanged && server.publicKey !== null) || settings.configsChanged
          ? { clientConfigChangedAt: now }
          : {}),
      })
      .where(eq(vpnServers.id, server.id));
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict("Another VPN server already uses this public key; give each node its own key.");
    throw error;
  }
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
    // A handshake is use: the device counts as activated from the earliest one (docs/product.md §3.3),
    // unless a download or QR view came even earlier (decision 064).
    const result = (await executor.execute(sql`
      update devices d set last_handshake_at = v.at,
        activated_via = case when d.activated_at is null or v.at < d.activated_at
          then 'handshake' else d.activated_via end,
        activated_at = least(d.activated_at, v.at)
      from (values ${values}) as v(public_key, at)
      where d.public_key = v.public_key and d.vpn_server_id = ${server.id}
        and (d.last_handshake_at is null or d.last_handshake_at < v.at)`)) as unknown as {
      rowCount?: number;
      affectedRows?: number;
    };
    handshakesRecorded += result.rowCount ?? result.affectedRows ?? 0;
  }
  const transfers = status.peers.filter(
    (peer): peer is PeerTransfer & typeof peer => peer.rxBytes !== undefined && peer.txBytes !== undefined,
  );
  await recordPeerTransfers(executor, server, transfers);
  await recordDnsChecks(executor, server.id, status.dnsChecks ?? [], now);
  await recordStreamingResults(executor, server.id, status.streamingChecks ?? [], now);
  return { publicKeyChanged, handshakesRecorded };
}

/**
 * The node's report of the settings it applied (decision 129), as columns: the version it tried,
 * since when (kept while the same version is reported again), why it failed, and its interface
 * MTU, which configs carry from now on. When it reports the desired version applied, the alternate
 * ports and resolver choice of that version become what configs offer and name (decision 133).
 * `configsChanged`: configs handed out before are out of date (the MTU moved, a port they may use
 * is gone, or the resolver they name changed). An MTU configs cannot carry (outside 1280-1420, a
 * node set up by hand) is not taken.
 */
export function settingsReported(server: VpnServer, status: NodeStatus, now: Date) {
  const reported = status.settings;
  if (!reported) return { columns: {}, configsChanged: false };
  const mtu = clientMtuSchema.safeParse(reported.mtu).success ? reported.mtu : server.appliedClientMtu;
  const error = reported.error ?? null;
  const same = reported.version === server.appliedSettingsVersion && error === server.settingsApplyError;
  const current = reported.version === server.settingsVersion && error === null;
  const portsBefore = configAlternatePorts(server);
  const ports = current ? server.alternatePorts : portsBefore;
  const resolver = current ? server.nodeResolver : configNodeResolver(server);
  return {
    columns: {
      appliedSettingsVersion: reported.version,
      appliedSettingsAt: same ? server.appliedSettingsAt : now,
      settingsApplyError: error,
      appliedClientMtu: mtu,
      appliedAlternatePorts: ports,
      appliedNodeResolver: resolver,
    },
    configsChanged:
      (mtu !== null && mtu !== configMtu(server)) ||
      portsBefore.some((port) => !ports.includes(port)) ||
      resolver !== configNodeResolver(server),
  };
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

/**
 * A node counts as up while its agent reported within this window: agents report every 30 s
 * (agent.ts `statusMs`), so three missed reports in a row mean it is down.
 */
export const NODE_SEEN_WINDOW_MS = 90_000;

/** How many VPN servers are up (their agent reported within the window) and how many are not. */
export async function countServersUp(
  executor: Executor,
  now = new Date(),
): Promise<{ up: number; down: number }> {
  const seenSince = new Date(now.getTime() - NODE_SEEN_WINDOW_MS);
  const [row] = await executor
    .select({
      up: sql<number>`count(*) filter (where ${vpnServers.lastSeenAt} >= ${seenSince.toISOString()}::timestamptz)`.mapWith(
        Number,
      ),
      total: count(),
    })
    .from(vpnServers);
  const up = row?.up ?? 0;
  return { up, down: Number(row?.total ?? 0) - up };
}
