import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { Database, Executor } from "#server/db/client.ts";
import type { StreamingService, VpnServerStatus } from "#server/db/schema/index.ts";
import { notFound } from "#server/domain/errors.ts";
import { clientSettingChange, clientSettingCommandSchemas } from "./client-setting-commands.ts";
import { moveServerDevices, revokeServerDevices, type ServerDevicesServices } from "./server-devices.ts";
import {
  changeServerSetting,
  removeServer,
  setServerEndpoint,
  setServerExitAddresses,
  setServerStatus,
  type ServerSummary,
} from "./server-edits.ts";
import { vpnServerFields } from "./server-fields.ts";
import {
  addStreamingService,
  listStreamingServices,
  removeStreamingService,
  streamingServiceFieldsSchema,
} from "./streaming-checks.ts";
import { addVpnServer, listVpnServers, parseServerField, rotateNodeToken } from "./servers.ts";

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
  // The streaming services every node checks from its exit (decision 133).
  z.object({ command: z.literal("list-services") }).strict(),
  streamingServiceFieldsSchema.extend({ command: z.literal("add-service") }).strict(),
  z.object({ command: z.literal("remove-service"), service: z.string().trim().min(1).max(60) }).strict(),
]);

export type ServerCommand = z.input<typeof serverCommandSchema>;

export type ServerCommandResult =
  | { id: string; name: string; endpoint?: string; nodeToken: string }
  | { servers: ServerSummary[] }
  | { server: ServerSummary }
  | { removed: string }
  | { emptied: string; moved: number; remaining: number; to: string[] }
  | { emptied: string; revoked: number }
  | { services: StreamingService[] }
  | { service: StreamingService }
  | { removedService: string };

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
    case "list-services":
      return { services: await listStreamingServices(executor) };
    case "add-service": {
      const { command: _, ...fields } = command;
      return { service: await executor.transaction((tx) => addStreamingService(tx, fields)) };
    }
    case "remove-service":
      return {
        removedService: (await executor.transaction((tx) => removeStreamingService(tx, command.service)))
          .name,
      };
  }
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
