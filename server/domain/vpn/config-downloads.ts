// Handing out a device's config through its capability link (GET /api/configs/{token}, and its
// QR code): the usual one, or the variant for one of its server's alternate ports (`?port=443`).
// Every config handed out is current, which `configIssuedAt` records.
import { eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { configFileName } from "#core/config-file-name.ts";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import {
  devices,
  subscriptions,
  vpnServers,
  type ActivationKind,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { DomainError, notFound } from "#server/domain/errors.ts";
import { hashToken, type Sealer } from "#server/secrets.ts";
import {
  alternateOffer,
  configAlternatePorts,
  downloadUrl,
  renderClientConfig,
  type AlternateOffer,
} from "./config-file.ts";
import { markActivated } from "./devices.ts";
import { isUsable } from "./usable.ts";

export type DeviceAccess =
  | { state: "unknown" }
  | { state: "gone"; reason: string }
  | { state: "ok"; device: Device; server: VpnServer; subscription: Subscription };

/** Resolves a capability token: unknown, gone (revoked or ended) or usable. */
export async function findDeviceByToken(
  executor: Executor,
  token: string,
  now = new Date(),
): Promise<DeviceAccess> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return { state: "unknown" };
  const [row] = await executor
    .select({ device: devices, server: vpnServers, subscription: subscriptions })
    .from(devices)
    // A revoked device whose server was removed has none (migration 0013); a live one always has.
    .leftJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(eq(devices.downloadTokenHash, hashToken(token)));
  if (!row) return { state: "unknown" };
  if (row.device.revokedAt || !row.server) return { state: "gone", reason: "This config has been revoked." };
  if (!isUsable(row.subscription, now))
    return { state: "gone", reason: "The subscription of this config has ended." };
  return { state: "ok", device: row.device, server: row.server, subscription: row.subscription };
}

/** The link's query: nothing, or `port`, one of the server's alternate ports. */
export const configLinkQuerySchema = z
  .object({
    port: z
      .string()
      .regex(/^[1-9][0-9]{0,4}$/, "port must be a port number, such as 443")
      .transform(Number)
      .optional(),
  })
  .strict();

export interface HandedOutConfig {
  text: string;
  fileName: string;
  device: Device;
  server: VpnServer;
}

/**
 * The config behind a capability token: 404 for an unknown one or a port its server does not
 * offer, 410 for a revoked device or an ended subscription. `activation`: the buyer's own page
 * asked, so the device counts as activated.
 */
export async function handOutConfig(
  deps: { db: Executor; sealer: Sealer; brandName: string },
  token: string,
  port: number | undefined,
  activation: Exclude<ActivationKind, "handshake"> | null,
  now = new Date(),
): Promise<HandedOutConfig> {
  const access = await findDeviceByToken(deps.db, token, now);
  if (access.state === "unknown") throw notFound("There is no config at this address.");
  if (access.state === "gone") throw new DomainError("gone", "Gone", access.reason);
  const { device, server } = access;
  if (port !== undefined && !configAlternatePorts(server).includes(port))
    throw notFound(`This config is not offered on port ${port}.`);
  const text = renderClientConfig(device, server, deps.sealer, { port });
  if (activation) await markActivated(deps.db, device.id, activation, now);
  await deps.db.update(devices).set({ configIssuedAt: now }).where(eq(devices.id, device.id));
  return { text, fileName: configFileName(deps.brandName, device.slot, port), device, server };
}

/** What a page lists of a device's config: its link, and the alternate-port variant when its server has one. */
export interface ConfigLinks {
  slot: number;
  downloadUrl: string;
  alternate: AlternateOffer | null;
}

type ServerPorts = Pick<VpnServer, "id" | "alternatePorts" | "appliedAlternatePorts">;

/**
 * The links of these devices (live, so each has a server), in their order. `known`: servers the
 * caller holds already (the one a device was just issued on); only the others are read.
 */
export async function configLinksOf(
  deps: { db: Executor; sealer: Sealer; config: Pick<Config, "PUBLIC_URL"> },
  shown: readonly Device[],
  known: readonly ServerPorts[] = [],
): Promise<ConfigLinks[]> {
  const portsOf = new Map<string, ServerPorts>(known.map((server) => [server.id, server]));
  const serverIds = [
    ...new Set(
      shown.flatMap((device) =>
        device.vpnServerId && !portsOf.has(device.vpnServerId) ? [device.vpnServerId] : [],
      ),
    ),
  ];
  const servers = serverIds.length
    ? await deps.db
        .select({
          id: vpnServers.id,
          alternatePorts: vpnServers.alternatePorts,
          appliedAlternatePorts: vpnServers.appliedAlternatePorts,
        })
        .from(vpnServers)
        .where(inArray(vpnServers.id, serverIds))
    : [];
  for (const server of servers) portsOf.set(server.id, server);
  return shown.map((device) => {
    const link = downloadUrl(deps, device);
    const server = device.vpnServerId ? portsOf.get(device.vpnServerId) : undefined;
    return {
      slot: device.slot,
      downloadUrl: link,
      alternate: (server && alternateOffer(link, server)) ?? null,
    };
  });
}
