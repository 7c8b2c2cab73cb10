import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Executor, Transaction } from "#server/db/client.ts";
import {
  devices,
  type ActivationKind,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import { queueConfigEmail, type ConfigEmailDeps } from "#server/domain/mail/config-email.ts";
import type { Logger } from "#server/logger.ts";
import { generateToken, hashToken } from "#server/secrets.ts";
import { addressesAt, poolCapacity } from "./addresses.ts";
import { generateKeyPair, generatePresharedKey } from "./keys.ts";
import { allocateAddress } from "./address-allocation.ts";
import { lockSubscription } from "./usable.ts";

// The VPN area owns devices: slots, limits, addresses, keys, the download link, activation.
// Billing asks for a subscription's first device; nothing outside this folder writes device rows.

export type VpnServices = ConfigEmailDeps & { logger: Pick<Logger, "error"> };

export class DeviceLimitReached extends DomainError {
  constructor(public readonly deviceLimit: number) {
    super(
      "conflict",
      "Device limit reached",
      `Your plan includes ${deviceLimit} device${deviceLimit === 1 ? "" : "s"} and all of them already have a config.`,
    );
  }
}

export class NoVpnServerAvailable extends DomainError {
  constructor() {
    super(
      "unavailable",
      "No VPN server available",
      "No active VPN server has a free address to issue a config.",
    );
  }
}

export class AddressPoolExhausted extends DomainError {
  constructor(serverName: string) {
    super("unavailable", "No VPN server available", `The address pool of VPN server ${serverName} is full.`);
  }
}

export interface IssuedDevice {
  device: Device;
  server: VpnServer;
}

type DeviceOwner = Pick<Subscription, "id" | "customerEmail" | "planId" | "planType" | "expiresAt">;

/**
 * Gives a subscription its next device and queues the e-mail that delivers its config: the
 * lowest free slot, on the least-loaded active server, at that server's lowest free address
 * (decision 044). The subscription row is locked first, so slots cannot race; the chosen server
 * stays locked until the caller's transaction ends, so keep what follows short. Nothing is
 * written when it throws (no slot, no server, full pool).
 */
export async function issueDevice(
  tx: Transaction,
  services: VpnServices,
  subscription: DeviceOwner,
  options: { name?: string } = {},
): Promise<IssuedDevice> {
  const { deviceLimit } = await lockSubscription(tx, subscription.id);
  return issueOnLockedSubscription(tx, services, subscription, deviceLimit, options);
}

/** `issueDevice` once the caller holds the subscription's row lock (or alone can see the subscription). */
async function issueOnLockedSubscription(
  tx: Transaction,
  services: VpnServices,
  subscription: DeviceOwner,
  deviceLimit: number,
  options: { name?: string } = {},
): Promise<IssuedDevice> {
  // Made before the allocation: the chosen server stays locked from it to the commit.
  const keys = generateKeyPair();
  const downloadToken = generateToken();
  const secrets = {
    publicKey: keys.publicKey,
    privateKeySealed: services.sealer.seal(keys.privateKey),
    presharedKeySealed: services.sealer.seal(generatePresharedKey()),
    downloadTokenHash: hashToken(downloadToken),
    downloadTokenSealed: services.sealer.seal(downloadToken),
  };
  const allocation = await allocateAddress(tx, { id: subscription.id, deviceLimit });
  if (allocation.slot === null) throw new DeviceLimitReached(deviceLimit);
  const { server, addressIndex, slot } = allocation;
  if (!server || addressIndex === undefined) throw new NoVpnServerAvailable();
  if (addressIndex > poolCapacity(server.ipv4Cidr, server.ipv6Cidr))
    throw new AddressPoolExhausted(server.name);
  const { ipv4, ipv6 } = addressesAt(server.ipv4Cidr, server.ipv6Cidr, addressIndex);
  const [device] = await tx
    .insert(devices)
    .values({
      subscriptionId: subscription.id,
      slot,
      name: options.name ?? `Device ${slot}`,
      vpnServerId: server.id,
      ...secrets,
      addressIndex,
      ipv4,
      ipv6,
    })
    .returning();
  const issued = { device: device!, server };
  // Its `configIssuedAt` is already the moment it was issued: no second write on the row.
  await queueConfigEmail(tx, services, issued, subscription);
  return issued;
}

/**
 * Slot 1 of the subscription, issued when missing. While no server can take it (none active,
 * or every pool full) the subscription stays without a device: the success page shows
 * Configuration Pending, the reason is logged, and the next verification tries again.
 *
 * `newSubscription`: the caller inserted the subscription in this same transaction, so no other
 * transaction can see it or give it a device; the lock and the look for slot 1 are skipped.
 * `server` is there when this call issued the device.
 */
export async function ensureFirstDevice(
  tx: Transaction,
  services: VpnServices,
  subscription: DeviceOwner & Pick<Subscription, "deviceLimit">,
  options: { newSubscription?: boolean } = {},
): Promise<{ device: Device; server?: VpnServer } | undefined> {
  let deviceLimit = subscription.deviceLimit;
  if (!options.newSubscription) {
    ({ deviceLimit } = await lockSubscription(tx, subscription.id));
    const { firstDevice: existing } = await deviceSummary(tx, subscription.id);
    if (existing) return { device: existing };
  }
  try {
    return await issueOnLockedSubscription(tx, services, subscription, deviceLimit);
  } catch (error) {
    if (!(error instanceof NoVpnServerAvailable || error instanceof AddressPoolExhausted)) throw error;
    services.logger.error(
      { err: error, subscriptionId: subscription.id },
      "config pending: cannot issue a device",
    );
    return undefined;
  }
}

export interface DeviceSummary {
  /** Slot 1, the live one if any, else the latest revoked; undefined while it was never issued. */
  firstDevice: Device | undefined;
  /** How many devices of the subscription hold a working config. */
  liveDevices: number;
}

/** Slot 1 and the live device count of a subscription, in one read. */
export async function deviceSummary(executor: Executor, subscriptionId: string): Promise<DeviceSummary> {
  const live = executor
    .select({ value: count() })
    .from(devices)
    .where(and(eq(devices.subscriptionId, subscriptionId), isNull(devices.revokedAt)));
  const [row] = await executor
    .select({ liveDevices: sql<number>`(${live})`.mapWith(Number), device: devices })
    .from(sql`(select 1) as one`)
    .leftJoin(devices, and(eq(devices.subscriptionId, subscriptionId), eq(devices.slot, 1)))
    // A revoked slot 1 may have been issued again: the live one wins.
    .orderBy(sql`${devices.revokedAt} desc nulls first`)
    .limit(1);
  return { firstDevice: row?.device ?? undefined, liveDevices: row?.liveDevices ?? 0 };
}

/** The subscription's devices that hold a working config, by slot. */
export function liveDevices(executor: Executor, subscriptionId: string): Promise<Device[]> {
  return executor
    .select()
    .from(devices)
    .where(and(eq(devices.subscriptionId, subscriptionId), isNull(devices.revokedAt)))
    .orderBy(devices.slot);
}

/** Names a live device (the caller checked whose it is); false when it is not live. */
export async function renameDevice(executor: Executor, deviceId: string, name: string, now = new Date()) {
  const renamed = await executor
    .update(devices)
    .set({ name, updatedAt: now })
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt)))
    .returning({ id: devices.id });
  return renamed.length > 0;
}

/** Revokes a live device; false when it was revoked already. */
export async function revokeDevice(executor: Executor, deviceId: string, now = new Date()): Promise<boolean> {
  const revoked = await executor
    .update(devices)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt)))
    .returning({ id: devices.id });
  return revoked.length > 0;
}

/** Revokes every live device of the subscriptions; their peers leave the servers at the next agent sync. */
export async function revokeSubscriptionDevices(
  executor: Executor,
  subscriptionIds: string[],
  now = new Date(),
): Promise<number> {
  if (subscriptionIds.length === 0) return 0;
  const revoked = await executor
    .update(devices)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(inArray(devices.subscriptionId, subscriptionIds), isNull(devices.revokedAt)))
    .returning({ id: devices.id });
  return revoked.length;
}

/**
 * The buyer's first QR view or download on the success page marks the device activated (a
 * handshake does too: `recordNodeStatus`); later ones change nothing.
 */
export async function markActivated(
  executor: Executor,
  deviceId: string,
  via: Exclude<ActivationKind, "handshake">,
  now = new Date(),
): Promise<void> {
  await executor
    .update(devices)
    .set({ activatedAt: now, activatedVia: via })
    .where(and(eq(devices.id, deviceId), isNull(devices.activatedAt)));
}
