import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { queryRows, type Executor } from "#server/db/client.ts";
import { vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { poolCapacity } from "./addresses.ts";
import { canTakeDevice } from "./address-allocation.ts";
import { realNodeRegistered } from "./development-server.ts";
import { CLIENT_MTU } from "#agent/node-api.ts";
import { checkAlternatePorts, defaultAlternatePorts } from "./client-settings.ts";
import { vpnServerFields } from "./server-fields.ts";
import { nodeSettingsState } from "./node-settings-state.ts";
import { serverCondition } from "./server-state.ts";
import { streamingResultsByServer } from "./streaming-checks.ts";

export interface NewVpnServer {
  name: string;
  region?: string;
  endpoint: string;
  /** Omit it to let the node's agent register the key it generates; until then the server takes no devices. */
  publicKey?: string | null;
  ipv4Cidr: string;
  ipv6Cidr: string;
  dns: string;
  /** The configs' `MTU =` (VPN_CLIENT_MTU); omitted: 1280. */
  clientMtu?: number;
  /** Extra UDP ports; omitted: 443 unless that is the endpoint's port (client-settings.ts). */
  alternatePorts?: number[];
  /** The demo's placeholder server (see `ensureDevelopmentServer`). */
  development?: boolean;
}

export class InvalidVpnServer extends DomainError {
  constructor(message: string) {
    super("invalid", "Invalid request", message);
  }
}

const newVpnServerSchema = z.object({
  name: vpnServerFields.name,
  region: vpnServerFields.region.optional(),
  endpoint: vpnServerFields.endpoint,
  publicKey: vpnServerFields.publicKey.nullable().optional(),
  ipv4Cidr: vpnServerFields.ipv4Cidr,
  ipv6Cidr: vpnServerFields.ipv6Cidr,
  dns: vpnServerFields.dns,
  clientMtu: vpnServerFields.clientMtu.default(CLIENT_MTU.default),
  alternatePorts: vpnServerFields.alternatePorts.optional(),
  development: z.boolean().optional(),
});

/** `value` as `schema` takes it, or an `InvalidVpnServer` naming the first rule it broke. */
export function parseServerField<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidVpnServer(parsed.error.issues[0]!.message);
  return parsed.data;
}

/** Registers a VPN server; the node token is returned once and only its hash is stored. */
export async function addVpnServer(
  executor: Executor,
  fields: NewVpnServer,
): Promise<{ server: VpnServer; nodeToken: string }> {
  const input = parseServerField(newVpnServerSchema, fields);
  const alternatePorts = checkAlternatePorts(
    input.alternatePorts ?? defaultAlternatePorts(input.endpoint),
    input.endpoint,
  );
  const [taken] = await executor
    .select({ id: vpnServers.id })
    .from(vpnServers)
    .where(eq(vpnServers.name, input.name));
  if (taken) throw new InvalidVpnServer(`a VPN server named ${input.name} already exists`);
  const nodeToken = generateToken(32);
  const [server] = await executor
    .insert(vpnServers)
    .values({
      ...input,
      alternatePorts,
      region: input.region ?? "ng-lagos",
      nodeTokenHash: hashToken(nodeToken),
    })
    .returning();
  return { server: server!, nodeToken };
}

/** Whether any VPN server can take a device now; checkout is not started otherwise. */
export async function anyServerCanTakeDevice(executor: Executor): Promise<boolean> {
  const rows = await queryRows(executor, sql`select 1 from vpn_servers where ${canTakeDevice} limit 1`);
  return rows.length > 0;
}

/** The regions where a device could be moved now: at least one server there can take one more. */
export async function regionsWithRoom(executor: Executor): Promise<string[]> {
  const rows = await queryRows<{ region: string }>(
    executor,
    sql`select distinct region from vpn_servers where ${canTakeDevice} order by region`,
  );
  return rows.map((row) => row.region);
}

/** A new node token for an existing server (the old one stops working); returned once. */
export async function rotateNodeToken(
  executor: Executor,
  name: string,
): Promise<{ server: VpnServer; nodeToken: string } | undefined> {
  const nodeToken = generateToken(32);
  const [server] = await executor
    .update(vpnServers)
    .set({ nodeTokenHash: hashToken(nodeToken) })
    .where(eq(vpnServers.name, name))
    .returning();
  return server ? { server, nodeToken } : undefined;
}

/** Every VPN server as the operator sees it, oldest first, with its state; only the one with `id` when given. */
export async function listVpnServers(executor: Executor, id?: string, now = new Date()) {
  const rows = await executor
    .select({
      id: vpnServers.id,
      name: vpnServers.name,
      region: vpnServers.region,
      endpoint: vpnServers.endpoint,
      publicKey: vpnServers.publicKey,
      ipv4Cidr: vpnServers.ipv4Cidr,
      ipv6Cidr: vpnServers.ipv6Cidr,
      dns: vpnServers.dns,
      status: vpnServers.status,
      development: vpnServers.development,
      lastSeenAt: vpnServers.lastSeenAt,
      exitAddresses: vpnServers.exitAddresses,
      liveDevices: vpnServers.liveDevices,
      clientMtu: vpnServers.clientMtu,
      alternatePorts: vpnServers.alternatePorts,
      nodeResolver: vpnServers.nodeResolver,
      appliedClientMtu: vpnServers.appliedClientMtu,
      settingsVersion: vpnServers.settingsVersion,
      settingsChangedAt: vpnServers.settingsChangedAt,
      appliedSettingsVersion: vpnServers.appliedSettingsVersion,
      appliedSettingsAt: vpnServers.appliedSettingsAt,
      settingsApplyError: vpnServers.settingsApplyError,
    })
    .from(vpnServers)
    .where(id === undefined ? undefined : eq(vpnServers.id, id))
    .orderBy(asc(vpnServers.createdAt));
  const context = { now, realNodeRegistered: await realNodeRegistered(executor) };
  const streamingByServer = await streamingResultsByServer(executor);
  return rows.map((row) => {
    const capacity = poolCapacity(row.ipv4Cidr, row.ipv6Cidr);
    const { state, takesDevices } = serverCondition(
      { ...row, keyRegistered: row.publicKey !== null, capacity },
      context,
    );
    const {
      appliedClientMtu,
      settingsVersion,
      settingsChangedAt,
      appliedSettingsVersion,
      appliedSettingsAt,
      settingsApplyError,
      ...rest
    } = row;
    const nodeSettings = nodeSettingsState({
      clientMtu: row.clientMtu,
      appliedClientMtu,
      settingsVersion,
      settingsChangedAt,
      appliedSettingsVersion,
      appliedSettingsAt,
      settingsApplyError,
    });
    // Each listed service's last check through it (decision 133), as the console shows them.
    const streaming = (streamingByServer.get(row.id) ?? []).map(
      ({ name, required, ok, reason, checkedAt }) => ({ name, required, ok, reason, checkedAt }),
    );
    return { ...rest, capacity, state, takesDevices, nodeSettings, streaming };
  });
}
