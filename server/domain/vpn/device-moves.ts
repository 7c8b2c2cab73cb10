import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { regionLabel } from "#core/locations.ts";
import type { Database, Transaction } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type Device, type VpnServer } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import { queueRelocatedEmail, type ConfigEmailDeps } from "#server/domain/mail/config-email.ts";
import { addressesAt, poolCapacity } from "./addresses.ts";
import { allocateAddressOn, type ServerChoice } from "./address-allocation.ts";

// Moving a live device to another VPN server: same row, slot, name, key pair and
// download link; a new server and address. The `devices` triggers free the old address, count
// the device on its new server, and log its key on both servers' change feeds, so the old node
// drops the peer and the new one adds it at their next sync.

/** A region (its least-loaded server with room) or one named server. */
export type MoveTarget = { region: string } | { serverId: string };

export interface MovedDevice {
  device: Device;
  from: VpnServer;
  to: VpnServer;
}

export class DeviceNotMovable extends DomainError {
  constructor(message: string) {
    super("conflict", "Device cannot be moved", message);
  }
}

export class NoRoomToMove extends DomainError {
  constructor(where: string) {
    super("conflict", "No room there", `No VPN server in ${where} can take another device right now.`);
  }
}

/**
 * Moves a live device to `target`. Throws `DeviceNotMovable` when it is revoked, unknown or
 * already there, `NoRoomToMove` when no server there can take it. The device row is locked
 * first, then the chosen server: keep what follows in the caller's transaction short.
 */
export async function moveDevice(
  tx: Transaction,
  deviceId: string,
  target: MoveTarget,
  now = new Date(),
): Promise<MovedDevice> {
  const current = await lockLiveDevice(tx, deviceId);
  if (!current) throw new DeviceNotMovable("This device is revoked or does not exist.");
  if ("region" in target && target.region === current.server.region)
    throw new DeviceNotMovable(`This device is already in ${regionLabel(target.region)}.`);
  if ("serverId" in target && target.serverId === current.server.id)
    throw new DeviceNotMovable("This device is already on that server.");
  const where = "region" in target ? regionLabel(target.region) : "that location";
  return relocate(tx, current, { ...target, excludeServerId: current.server.id }, where, now);
}

/**
 * Moves every live device off a server (to empty one being taken out of service): each to the
 * least-loaded other server with room, in the same region when one has room. Each move commits
 * on its own with its customer's e-mail; it stops at the first device nothing can take, leaving
 * it and the rest where they are (`remaining`). Call `mail.wake()` afterwards.
 */
export async function moveDevicesOffServer(
  db: Database,
  deps: ConfigEmailDeps,
  serverId: string,
  now = new Date(),
  /** Only onto this server (`npm run vpn -- move-devices … --to`). */
  toServerId?: string,
): Promise<{ moved: MovedDevice[]; remaining: number }> {
  const [server] = await db.select().from(vpnServers).where(eq(vpnServers.id, serverId));
  if (!server) return { moved: [], remaining: 0 };
  const live = await db
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.vpnServerId, serverId), isNull(devices.revokedAt)))
    .orderBy(asc(devices.createdAt));
  const moved: MovedDevice[] = [];
  for (const [index, { id }] of live.entries()) {
    try {
      const result = await db.transaction(async (tx) => {
        const current = await lockLiveDevice(tx, id);
        // Revoked, or moved by someone else since the list was read: nothing left to do for it.
        if (!current || current.server.id !== serverId) return undefined;
        const choice: ServerChoice = { excludeServerId: serverId, preferRegion: server.region };
        if (toServerId !== undefined) choice.serverId = toServerId;
        const movedDevice = await relocate(tx, current, choice, "any location", now);
        // The owner gets the new config itself (attached): what they hold now is current.
        const queued = await queueRelocatedEmail(
          tx,
          deps,
          { device: movedDevice.device, server: movedDevice.to },
          current.subscription,
          { location: regionLabel(movedDevice.to.region), at: now },
        );
        if (queued)
          await tx.update(devices).set({ configIssuedAt: now }).where(eq(devices.id, movedDevice.device.id));
        return movedDevice;
      });
      if (result) moved.push(result);
    } catch (error) {
      if (error instanceof NoRoomToMove) return { moved, remaining: live.length - index };
      throw error;
    }
  }
  return { moved, remaining: 0 };
}

/** Moves run one at a time (see below), then the device row is locked; undefined when it is not live. */
async function lockLiveDevice(tx: Transaction, deviceId: string) {
  // A move locks its target server and then, through the trigger, updates its old one: two moves
  // in opposite directions would deadlock. Moves are rare, so they wait for each other instead.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('vpn-device-moves'))`);
  const [row] = await tx
    .select({
      device: devices,
      server: vpnServers,
      subscription: {
        customerEmail: subscriptions.customerEmail,
        planId: subscriptions.planId,
        planType: subscriptions.planType,
        expiresAt: subscriptions.expiresAt,
      },
    })
    .from(devices)
    .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt)))
    .for("update", { of: devices });
  return row;
}

async function relocate(
  tx: Transaction,
  current: { device: Device; server: VpnServer },
  choice: ServerChoice,
  where: string,
  now: Date,
): Promise<MovedDevice> {
  const allocation = await allocateAddressOn(tx, choice);
  if (
    !allocation ||
    allocation.addressIndex > poolCapacity(allocation.server.ipv4Cidr, allocation.server.ipv6Cidr)
  )
    throw new NoRoomToMove(where);
  const { server, addressIndex } = allocation;
  const { ipv4, ipv6 } = addressesAt(server.ipv4Cidr, server.ipv6Cidr, addressIndex);
  const [device] = await tx
    .update(devices)
    .set({
      vpnServerId: server.id,
      addressIndex,
      ipv4,
      ipv6,
      // Handshakes so far were with the old node; the new config has not been used yet.
      lastHandshakeAt: null,
      updatedAt: now,
    })
    .where(eq(devices.id, current.device.id))
    .returning();
  return { device: device!, from: current.server, to: server };
}
