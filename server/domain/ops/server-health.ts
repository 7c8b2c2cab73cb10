import { and, asc, count, eq, gte, isNull, lt, max } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import {
  devices,
  subscriptions,
  vpnPeerVersions,
  vpnServers,
  type VpnServerStatus,
} from "#server/db/schema/index.ts";
import { poolCapacity } from "#server/domain/vpn/addresses.ts";
import { ACTIVE_HANDSHAKE_WINDOW_MS } from "#server/domain/vpn/nodes.ts";
import { serverCondition, type ServerState } from "#server/domain/vpn/server-state.ts";
import { realNodeRegistered } from "#server/domain/vpn/development-server.ts";
import {
  describeMtu,
  describeNodeSettings,
  nodeSettingsState,
  type NodeSettingsState,
} from "#server/domain/vpn/node-settings-state.ts";
import { exitCountries, type ExitCountry } from "#server/domain/vpn/exit-country.ts";
import { usableSubscription } from "#server/domain/vpn/usable.ts";
import { streamingResultsByServer, type ServiceResult } from "#server/domain/vpn/streaming-checks.ts";

// What the staff console's servers page shows of each VPN server (issue 15): its settings, what
// its node must carry against what it last reported, and how full it is.

/** What a server is and what its node must carry: the alerts read this much (decision 138). */
export interface ServerOverview {
  id: string;
  name: string;
  region: string;
  endpoint: string;
  /** The public addresses its traffic leaves from (/check compares visitors with them). */
  exitAddresses: string[];
  /** Where each exit address appears to be, by the shipped country database (vpn/exit-country.ts). */
  exitCountries: ExitCountry[];
  /** The settings every config of it carries or its node is given, shown as stored. */
  dns: string;
  ipv4Cidr: string;
  ipv6Cidr: string;
  status: VpnServerStatus;
  /** What it is doing, in the operator's words (vpn/server-state.ts), and whether it takes devices now. */
  state: ServerState;
  takesDevices: boolean;
  explanation: string;
  development: boolean;
  /** Whether its agent has registered the node's key (until then it takes no devices). */
  keyRegistered: boolean;
  lastSeenAt: string | null;
  /** The peers its node must carry now (`livePeers` of vpn/node-peers.ts: none while disabled). */
  desiredPeers: number;
  /** The server's version in the change feed (vpn/peer-changes.ts). */
  desiredVersion: string;
  /** What the node reported last: the version applied and the peers its interface held. */
  appliedVersion: string | null;
  appliedPeers: number | null;
  liveDevices: number;
  /** How many devices its address pools hold. */
  capacity: number;
  /** What its configs say besides keys. */
  clientMtu: number;
  alternatePorts: number[];
  /** True: configs name the node's resolver; false: `dns`. */
  nodeResolver: boolean;
  /** Desired against applied node settings (decision 129), and the words for them. */
  nodeSettings: NodeSettingsState;
  /** "1380", or "1380 (node still on 1280 since …)". */
  mtuText: string;
  nodeSettingsText: string;
  /** Each streaming service staff listed and its last check through this server (decision 133). */
  streaming: ServiceResult[];
}

/** The servers page's figures besides the state: each reads every device of the shop (decision 138). */
export interface ServerHealth extends ServerOverview {
  /** Live devices with a handshake inside `ACTIVE_HANDSHAKE_WINDOW_MS`. */
  connectedPeers: number;
  /**
   * The latest handshake its agent reported for any device on it: proof that its UDP port is
   * reachable from the internet; null while none has been seen.
   */
  lastHandshakeAt: string | null;
  /** Live devices whose config was handed out before the server's last change of what configs say. */
  outdatedConfigs: number;
}

/** Every server oldest first, with its state and the peers its node must carry. */
export async function listServerOverviews(executor: Executor, now = new Date()): Promise<ServerOverview[]> {
  const servers = await executor
    .select({ server: vpnServers, desiredVersion: vpnPeerVersions.version })
    .from(vpnServers)
    .leftJoin(vpnPeerVersions, eq(vpnPeerVersions.serverId, vpnServers.id))
    .orderBy(asc(vpnServers.createdAt));
  const desired = await countsByServer(
    executor
      .select({ serverId: devices.vpnServerId, value: count() })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(isNull(devices.revokedAt), usableSubscription(now)))
      .groupBy(devices.vpnServerId),
  );
  const context = { now, realNodeRegistered: await realNodeRegistered(executor) };
  const countries = new Map<string, ExitCountry[]>();
  for (const { server } of servers) countries.set(server.id, await exitCountries(server.exitAddresses));
  const streaming = await streamingResultsByServer(executor);
  return servers.map(({ server, desiredVersion }) => {
    const capacity = poolCapacity(server.ipv4Cidr, server.ipv6Cidr);
    const keyRegistered = server.publicKey !== null;
    const nodeSettings = nodeSettingsState(server);
    return {
      id: server.id,
      name: server.name,
      region: server.region,
      endpoint: server.endpoint,
      exitAddresses: server.exitAddresses,
      exitCountries: countries.get(server.id) ?? [],
      dns: server.dns,
      ipv4Cidr: server.ipv4Cidr,
      ipv6Cidr: server.ipv6Cidr,
      status: server.status,
      ...serverCondition({ ...server, keyRegistered, capacity }, context),
      development: server.development,
      keyRegistered,
      lastSeenAt: server.lastSeenAt?.toISOString() ?? null,
      desiredPeers: server.status === "disabled" ? 0 : (desired.get(server.id) ?? 0),
      desiredVersion: String(desiredVersion ?? 0),
      appliedVersion: server.appliedPeerVersion,
      appliedPeers: server.appliedPeerCount,
      liveDevices: server.liveDevices,
      capacity,
      clientMtu: server.clientMtu,
      alternatePorts: server.alternatePorts,
      nodeResolver: server.nodeResolver,
      nodeSettings,
      mtuText: describeMtu(server.clientMtu, nodeSettings).replace(/^MTU /, ""),
      nodeSettingsText: describeNodeSettings(nodeSettings),
      streaming: streaming.get(server.id) ?? [],
    };
  });
}

/** The servers page: each server's state, and how its devices connect and how current their configs are. */
export async function listServerHealth(executor: Executor, now = new Date()): Promise<ServerHealth[]> {
  const states = await listServerOverviews(executor, now);
  const connected = await countsByServer(
    executor
      .select({ serverId: devices.vpnServerId, value: count() })
      .from(devices)
      .where(
        and(
          isNull(devices.revokedAt),
          gte(devices.lastHandshakeAt, new Date(now.getTime() - ACTIVE_HANDSHAKE_WINDOW_MS)),
        ),
      )
      .groupBy(devices.vpnServerId),
  );
  const outdated = await countsByServer(
    executor
      .select({ serverId: devices.vpnServerId, value: count() })
      .from(devices)
      .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
      .where(and(isNull(devices.revokedAt), lt(devices.configIssuedAt, vpnServers.clientConfigChangedAt)))
      .groupBy(devices.vpnServerId),
  );
  const handshakes = new Map(
    (
      await executor
        .select({ serverId: devices.vpnServerId, at: max(devices.lastHandshakeAt) })
        .from(devices)
        .groupBy(devices.vpnServerId)
    ).map((row) => [row.serverId ?? "", row.at]),
  );
  return states.map((state) => ({
    ...state,
    connectedPeers: connected.get(state.id) ?? 0,
    lastHandshakeAt: handshakes.get(state.id)?.toISOString() ?? null,
    outdatedConfigs: outdated.get(state.id) ?? 0,
  }));
}

async function countsByServer(
  rows: Promise<Array<{ serverId: string | null; value: number }>>,
): Promise<Map<string, number>> {
  return new Map((await rows).map((row) => [row.serverId ?? "", Number(row.value)]));
}
