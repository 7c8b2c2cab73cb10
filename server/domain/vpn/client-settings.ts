// What a VPN server's client configs say besides keys and addresses: the MTU, the
// alternate UDP ports, and whose resolver `DNS =` names. The operator's commands (`npm run vpn`
// set-mtu / set-ports / set-dns, and the staff console) change them here, one rule each.
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { conflict, invalidInput } from "#server/domain/errors.ts";
import { configAlternatePorts, configNodeResolver, endpointPort } from "./config-file.ts";
import { bumpPeerVersion } from "./peer-changes.ts";
import { vpnServerFields } from "./server-fields.ts";

/** Besides the endpoint's port, a server accepts WireGuard on 443 unless told otherwise. */
export const DEFAULT_ALTERNATE_PORTS: readonly number[] = [443];

/** The alternate ports a new server with `endpoint` gets: the defaults other than its own port. */
export function defaultAlternatePorts(endpoint: string): number[] {
  return DEFAULT_ALTERNATE_PORTS.filter((port) => port !== endpointPort(endpoint));
}

/** `set-dns`: the node's own resolver, or 1-4 resolver addresses (the one `dns` grammar) configs name instead. */
export const clientDnsSchema = z.union([z.literal("node"), vpnServerFields.dns]);

/** Throws (400) unless `schema` takes `value`; the message names the setting. */
function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput(`${what}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/** Ports a server may list as alternates: valid, and never the endpoint's own port. */
export function checkAlternatePorts(ports: unknown, endpoint: string): number[] {
  const parsed = parse(vpnServerFields.alternatePorts, ports, "alternate ports");
  if (parsed.includes(endpointPort(endpoint)))
    throw invalidInput(
      `alternate ports: ${endpointPort(endpoint)} is the endpoint's own port; list only other ports`,
    );
  return parsed;
}

type Change = Partial<
  Pick<
    VpnServer,
    | "clientMtu"
    | "appliedClientMtu"
    | "alternatePorts"
    | "appliedAlternatePorts"
    | "nodeResolver"
    | "appliedNodeResolver"
    | "dns"
  >
>;

/**
 * Whether configs wait for the node (decision 129, 133): it has registered and is not the demo's
 * placeholder. Without a node to wait for, configs follow a change at once.
 */
const waitsForNode = (server: VpnServer) => server.publicKey !== null && !server.development;

/**
 * Writes a change of the locked `server`'s settings. The node settings (MTU, ports, resolver) are
 * desired state (decision 129): a new settings version, and a new peer version that wakes the
 * agent's held poll; the running agent applies them within seconds and reports the version back
 * (nodes.ts). `outdatesConfigs` marks configs handed out before as out of date, which their owners
 * are told (config-notices.ts); a new MTU does so only once the node has applied it.
 */
async function applyChange(
  tx: Executor,
  server: VpnServer,
  change: Change,
  outdatesConfigs: boolean,
  now: Date,
): Promise<void> {
  const nodeSetting =
    change.clientMtu !== undefined ||
    change.alternatePorts !== undefined ||
    (change.nodeResolver !== undefined && change.nodeResolver !== server.nodeResolver);
  await tx
    .update(vpnServers)
    .set({
      ...change,
      ...(outdatesConfigs ? { clientConfigChangedAt: now } : {}),
      ...(nodeSetting
        ? {
            settingsVersion: sql`${vpnServers.settingsVersion} + 1`,
            // "Differs since": the first change the node has not applied yet.
            settingsChangedAt:
              server.appliedSettingsVersion === server.settingsVersion ? now : server.settingsChangedAt,
          }
        : {}),
    })
    .where(eq(vpnServers.id, server.id));
  if (nodeSetting) await bumpPeerVersion(tx, server.id);
}

/**
 * `set-mtu`: the node's interface MTU and, once the node reports it applied, the configs' `MTU =`
 * (configs handed out before are then out of date: nodes.ts).
 */
export async function changeClientMtu(tx: Executor, server: VpnServer, mtu: unknown, now = new Date()) {
  const clientMtu = parse(vpnServerFields.clientMtu, mtu, "MTU");
  if (clientMtu === server.clientMtu)
    throw conflict(`VPN server ${server.name} already gives its clients MTU ${clientMtu}.`);
  // Configs keep the MTU they carried until the node reports the new one applied; a node that has
  // not reported its settings yet (an agent from before decision 129) carries the old one at best.
  // With no node to wait for (none registered, the development placeholder) configs follow at once.
  const nodeFirst = waitsForNode(server);
  const carried = nodeFirst ? (server.appliedClientMtu ?? server.clientMtu) : null;
  await applyChange(tx, server, { clientMtu, appliedClientMtu: carried }, !nodeFirst, now);
}

/**
 * `set-ports`: the UDP ports the node redirects to its listen port. Configs offer the new ports
 * once the node reports them applied (decision 133); taking one away then outdates the configs
 * that use it (an owner may hold one: nodes.ts); adding one changes no config handed out.
 */
export async function changeAlternatePorts(
  tx: Executor,
  server: VpnServer,
  ports: unknown,
  now = new Date(),
) {
  const alternatePorts = checkAlternatePorts(ports, server.endpoint);
  const same =
    alternatePorts.length === server.alternatePorts.length &&
    alternatePorts.every((port) => server.alternatePorts.includes(port));
  if (same)
    throw conflict(
      `VPN server ${server.name} already accepts ${describePorts(alternatePorts)} besides its endpoint's port.`,
    );
  const removed = server.alternatePorts.some((port) => !alternatePorts.includes(port));
  const nodeFirst = waitsForNode(server);
  const carried = nodeFirst ? configAlternatePorts(server) : null;
  await applyChange(
    tx,
    server,
    { alternatePorts, appliedAlternatePorts: carried },
    removed && !nodeFirst,
    now,
  );
}

/**
 * `set-dns`: configs name the node's own resolver, or the given resolvers (the opt-out). A switch
 * to or from the node's resolver reaches configs once the node reports it applied (decision 133);
 * other resolvers in place of others reach them at once (the node has nothing to do).
 */
export async function changeClientDns(
  tx: Executor,
  server: VpnServer,
  choice: unknown,
  now = new Date(),
): Promise<void> {
  const dns = parse(clientDnsSchema, choice, "DNS");
  if (dns === "node") {
    if (server.nodeResolver) throw conflict(`VPN server ${server.name} already uses its node's resolver.`);
    await applyChange(
      tx,
      server,
      { nodeResolver: true, ...resolverCarried(server) },
      !waitsForNode(server),
      now,
    );
    return;
  }
  if (!server.nodeResolver && dns === server.dns)
    throw conflict(`VPN server ${server.name} already uses ${dns}.`);
  // Configs name `dns` now unless they still name the node's resolver until the node stops it.
  const switching = server.nodeResolver;
  const outdates = !switching || !waitsForNode(server) || !configNodeResolver(server);
  await applyChange(
    tx,
    server,
    { nodeResolver: false, dns, ...(switching ? resolverCarried(server) : {}) },
    outdates,
    now,
  );
}

/** What configs keep naming while the node switches its resolver: what it last applied. */
const resolverCarried = (server: VpnServer) => ({
  appliedNodeResolver: waitsForNode(server) ? configNodeResolver(server) : null,
});

export function describePorts(ports: readonly number[]): string {
  return ports.length ? `UDP ${ports.join(", ")}` : "no other port";
}
