import { and, count, eq, isNull, or } from "drizzle-orm";
import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { Database, Executor } from "#server/db/client.ts";
import { devices, vpnServers, type VpnServer, type VpnServerStatus } from "#server/db/schema/index.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { clientSettingChange, clientSettingCommandSchemas } from "./client-setting-commands.ts";
import { endpointPort } from "./config-file.ts";
import { parseExitAddresses } from "./exit-addresses.ts";
import { bumpPeerVersion } from "./peer-changes.ts";
import { moveServerDevices, revokeServerDevices, type ServerDevicesServices } from "./server-devices.ts";
import { vpnServerFields } from "./server-fields.ts";
import {
  addVpnServer,
  InvalidVpnServer,
  listVpnServers,
  parseServerField,
  rotateNodeToken,
} from "./servers.ts";

// What an operator does to VPN servers (`npm run vpn`, decision 043): the one dispatcher that
// both the admin route (POST /api/nodes/servers) and the CLI's direct database path call.

/** What a new server takes from the settings when the command does not say (VPN_CLIENT_MTU: 1280 when absent). */
export type ServerDefaults = Pick<Config, "VPN_DNS"> & Partial<Pick<Config, "VPN_CLIENT_MTU">>;

/** What `add-server` takes, wherever it comes from (the CLI, the staff console). */
export const newServerFieldsSchema = z
  .object({
    name: vpnServerFields.name,
    region: vpnServerFields.region.optional(),
    endpoint: vpnServerFields.endpoint,
    ipv4: vpnServerFields.ipv4Cidr,
    ipv6: vpnServerFields.ipv6Cidr,
    publicKey: vpnServerFields.publicKey.optional(),
    dns: vpnServerFields.dns.optional(),
  })
  .strict();

/** A server is named by its id or its name. */
const serverRef = z.string().min(1).max(63);

/** Every `npm run vpn` command, as the CLI sends it and as `runServerCommand` takes it. */
export const serverCommandSchema = z.discriminatedUnion("command", [
  newServerFieldsSchema.extend({ command: z.literal("add-server") }),
  z.object({ command: z.literal("rotate-node-token"), name: z.string().min(1).max(63) }).strict(),
  z.object({ command: z.literal("list-servers") }).strict(),
  z.object({ command: z.literal("drain-server"), server: serverRef }).strict(),
  z.object({ command: z.literal("disable-server"), server: serverRef }).strict(),
  z.object({ command: z.literal("enable-server"), server: serverRef }).strict(),
  z
    .object({ command: z.literal("set-endpoint"), server: serverRef, endpoint: vpnServerFields.endpoint })
    .strict(),
  z
    .object({ command: z.literal("set-exit"), server: serverRef, addresses: vpnServerFields.exitAddresses })
    .strict(),
  z.object({ command: z.literal("remove-server"), server: serverRef }).strict(),
  z.object({ command: z.literal("move-devices"), server: serverRef, to: serverRef.optional() }).strict(),
  z.object({ command: z.literal("revoke-devices"), server: serverRef }).strict(),
  ...clientSettingCommandSchemas,
]);

export type ServerCommand = z.input<typeof serverCommandSchema>;

export type ServerSummary = Awaited<ReturnType<typeof listVpnServers>>[number];

export type ServerCommandResult =
  | { id: string; name: string; endpoint?: string; nodeToken: string }
  | { servers: ServerSummary[] }
  | { server: ServerSummary }
  | { removed: string }
  | { emptied: string; moved: number; remaining: number; to: string[] }
  | { emptied: string; revoked: number };

/** What the commands need: the database, the settings they read, and the outbox for owners' e-mails. */
export type ServerCommandServices = Omit<ServerDevicesServices, "config"> & {
  config: ServerDevicesServices["config"] & ServerDefaults & Pick<Config, "NAIJALINK_MODE">;
};

/** Runs one command; it is parsed here, so every caller (the admin route, the CLI's direct path) is held to the same rules. */
export async function runServerCommand(
  executor: Database,
  services: ServerCommandServices,
  input: ServerCommand,
): Promise<ServerCommandResult> {
  const { config } = services;
  const command = parseServerField(serverCommandSchema, input);
  switch (command.command) {
    case "list-servers":
      return { servers: await listVpnServers(executor) };
    case "rotate-node-token": {
      const rotated = await rotateNodeToken(executor, command.name);
      if (!rotated) throw notFound(`There is no VPN server named ${command.name}.`);
      return { id: rotated.server.id, name: rotated.server.name, nodeToken: rotated.nodeToken };
    }
    case "add-server":
      return addServer(executor, config, command);
    case "drain-server":
    case "disable-server":
    case "enable-server":
      return {
        server: await setServerStatus(
          executor,
          command.server,
          STATUS_AFTER_COMMAND[command.command],
          config,
        ),
      };
    case "set-endpoint":
      return { server: await setServerEndpoint(executor, command.server, command.endpoint) };
    case "set-exit":
      return { server: await setServerExitAddresses(executor, command.server, command.addresses) };
    case "remove-server":
      return { removed: (await removeServer(executor, command.server)).name };
    case "move-devices":
      return moveServerDevices(executor, services, command.server, command.to);
    case "revoke-devices":
      return revokeServerDevices(executor, services, command.server);
    case "set-mtu":
    case "set-ports":
    case "set-dns":
      return { server: await changeServerSetting(executor, command.server, clientSettingChange(command)) };
  }
}

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

/** `add-server`: the node token is in the answer only. */
export async function addServer(
  executor: Executor,
  config: ServerDefaults,
  fields: z.infer<typeof newServerFieldsSchema>,
) {
  const { server, nodeToken } = await addVpnServer(executor, {
    name: fields.name,
    region: fields.region,
    endpoint: fields.endpoint,
    publicKey: fields.publicKey ?? null,
    ipv4Cidr: fields.ipv4,
    ipv6Cidr: fields.ipv6,
    dns: fields.dns ?? config.VPN_DNS,
    clientMtu: config.VPN_CLIENT_MTU,
  });
  return { id: server.id, name: server.name, endpoint: server.endpoint, nodeToken };
}

const STATUS_AFTER_COMMAND = {
  "drain-server": "draining",
  "disable-server": "disabled",
  "enable-server": "active",
} as const satisfies Record<string, VpnServerStatus>;

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
