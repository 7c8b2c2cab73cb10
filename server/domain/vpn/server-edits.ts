import { and, count, eq, isNull, or } from "drizzle-orm";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, vpnServers, type VpnServer, type VpnServerStatus } from "#server/db/schema/index.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { endpointPort } from "./config-file.ts";
import { parseExitAddresses } from "./exit-addresses.ts";
import { bumpPeerVersion } from "./peer-changes.ts";
import { vpnServerFields } from "./server-fields.ts";
import { InvalidVpnServer, listVpnServers, parseServerField } from "./servers.ts";

// The changes to one VPN server that its operator's commands make (server-admin.ts), each made
// with the server's row locked, each answering the server as the operator sees it.

export type ServerSummary = Awaited<ReturnType<typeof listVpnServers>>[number];

/** Locks the server, makes `change` (client-settings.ts) and answers its new summary. */
export async function changeServerSetting(
  executor: Executor,
  ref: string,
  change: (tx: Executor, server: VpnServer) => Promise<void>,
): Promise<ServerSummary> {
  return executor.transaction(async (tx) => {
    const server = await lockServer(tx, ref);
    await change(tx, server);
    return serverSummary(tx, server.id);
  });
}

/** The server named by `ref` (its id or its name), locked for the rest of the transaction. */
export async function lockServer(executor: Executor, ref: string): Promise<VpnServer> {
  const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
  const [server] = await executor
    .select()
    .from(vpnServers)
    .where(isId ? or(eq(vpnServers.id, ref), eq(vpnServers.name, ref)) : eq(vpnServers.name, ref))
    .for("update");
  if (!server) throw notFound(`There is no VPN server ${JSON.stringify(ref.slice(0, 80))}.`);
  return server;
}

/** What the operator sees of one server (`list-servers`' row). */
export async function serverSummary(executor: Executor, id: string): Promise<ServerSummary> {
  const [summary] = await listVpnServers(executor, id);
  return summary!;
}

/**
 * Decision 078. A draining server takes no new devices (it fails `canTakeDevice`) and its live
 * devices keep working; a disabled one also has its node told to carry no peers (the status
 * trigger of migration 0021 logs every live key, `livePeers` leaves them out), so they stop
 * connecting until it is enabled again or they are moved. With no other server able to take a
 * device, checkout answers 503. Setting the status it already has is refused (409).
 */
export async function setServerStatus(
  executor: Executor,
  ref: string,
  status: VpnServerStatus,
  config: Partial<Pick<Config, "NAIJALINK_MODE">> = {},
) {
  return executor.transaction(async (tx) => {
    const server = await lockServer(tx, ref);
    if (server.status === status) throw conflict(`VPN server ${server.name} is already ${status}.`);
    if (status === "active" && server.development && config.NAIJALINK_MODE === "live")
      throw conflict(
        `VPN server ${server.name} is the demo's development placeholder: a live store never sells its configs (they cannot connect).`,
      );
    await tx.update(vpnServers).set({ status }).where(eq(vpnServers.id, server.id));
    return serverSummary(tx, server.id);
  });
}

/**
 * Configs rendered from now on carry the new endpoint; configs already handed out keep the old
 * one, and their owners are told to download them again (decision 090). A new port is the node's
 * listen port (`nodeServerOf`), so its agent is told at once; it may not be an alternate port.
 */
export async function setServerEndpoint(
  executor: Executor,
  ref: string,
  newEndpoint: string,
  now = new Date(),
) {
  const endpoint = parseServerField(vpnServerFields.endpoint, newEndpoint);
  return executor.transaction(async (tx) => {
    const server = await lockServer(tx, ref);
    if (server.alternatePorts.includes(endpointPort(endpoint)))
      throw new InvalidVpnServer(
        `${endpointPort(endpoint)} is an alternate port of ${server.name}; take it out of them first (set-ports).`,
      );
    const changed = endpoint !== server.endpoint ? { clientConfigChangedAt: now } : {};
    await tx
      .update(vpnServers)
      .set({ endpoint, ...changed })
      .where(eq(vpnServers.id, server.id));
    if (endpointPort(endpoint) !== endpointPort(server.endpoint)) await bumpPeerVersion(tx, server.id);
    return serverSummary(tx, server.id);
  });
}

/**
 * The public addresses the server's traffic leaves from, which /check compares visitors with
 * (an empty list clears them). Its agent, if it reports exit addresses, overrides them.
 */
export async function setServerExitAddresses(executor: Executor, ref: string, addresses: readonly string[]) {
  const exitAddresses = parseExitAddresses(addresses);
  return executor.transaction(async (tx) => {
    const server = await lockServer(tx, ref);
    await tx.update(vpnServers).set({ exitAddresses }).where(eq(vpnServers.id, server.id));
    return serverSummary(tx, server.id);
  });
}

/**
 * Removes a server that holds no live device; its revoked devices stay (their slots stay used)
 * without a server (migration 0013). Its node token stops working.
 */
export async function removeServer(executor: Executor, ref: string): Promise<VpnServer> {
  return executor.transaction(async (tx) => {
    // The lock waits for any allocation on this server (it locks the row too) to commit.
    const server = await lockServer(tx, ref);
    const [live] = await tx
      .select({ value: count() })
      .from(devices)
      .where(and(eq(devices.vpnServerId, server.id), isNull(devices.revokedAt)));
    const liveDevices = Number(live?.value ?? 0);
    if (liveDevices > 0) {
      throw conflict(
        `VPN server ${server.name} still holds ${liveDevices} live device${liveDevices === 1 ? "" : "s"}; ` +
          "it can be removed once none is left (drain-server stops it taking new ones).",
      );
    }
    await tx.delete(vpnServers).where(eq(vpnServers.id, server.id));
    return server;
  });
}
