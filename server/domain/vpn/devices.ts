import { and, eq, inArray, isNull, type WithSubquery } from "drizzle-orm";
import type { Executor, Transaction } from "#server/db/client.ts";
import {
  devices,
  subscriptions,
  vpnServers,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { generateToken, hashToken, type Sealer } from "#server/secrets.ts";
import { addressesAt, poolCapacity } from "./addresses.ts";
import { generateKeyPair, generatePresharedKey, takeKeyPair } from "./keys.ts";
import { allocateAddress, allocateAddresses } from "./servers.ts";

export class DeviceLimitReached extends Error {
  constructor(public readonly deviceLimit: number) {
    super(`All ${deviceLimit} device slot${deviceLimit === 1 ? "" : "s"} of this subscription are in use.`);
    this.name = "DeviceLimitReached";
  }
}

export class NoVpnServerAvailable extends Error {
  constructor() {
    super("No active VPN server has a free address to issue a config.");
    this.name = "NoVpnServerAvailable";
  }
}

export class AddressPoolExhausted extends Error {
  constructor(serverName: string) {
    super(`The address pool of VPN server ${serverName} is full.`);
    this.name = "AddressPoolExhausted";
  }
}

export interface IssuedDevice {
  device: Device;
  server: VpnServer;
  /** The capability token of the download URL (only its hash is looked up). */
  downloadToken: string;
}

/**
 * Gives a subscription its next device: the lowest free slot, on the least-loaded active
 * server, at that server's lowest free address (decision 044). The subscription row is locked
 * first (slots cannot race), then one statement picks the slot, locks the server and takes its
 * next offset, and a second inserts the device; the server stays locked until the caller's
 * transaction ends, so keep what follows short.
 *
 * `newSubscription: true` tells it the subscription was inserted in this same transaction and
 * has no device yet (no other transaction can see it), so slot 1 is taken without the lock.
 * Nothing is written when it throws (no slot, no server, full pool).
 */
export async function issueDevice(
  tx: Transaction,
  sealer: Sealer,
  subscription: Pick<Subscription, "id"> & Partial<Pick<Subscription, "deviceLimit">>,
  options: { name?: string; newSubscription?: boolean } = {},
): Promise<IssuedDevice> {
  let deviceLimit = subscription.deviceLimit;
  if (options.newSubscription && deviceLimit !== undefined) {
    if (deviceLimit < 1) throw new DeviceLimitReached(deviceLimit);
  } else {
    const [locked] = await tx
      .select({ deviceLimit: subscriptions.deviceLimit })
      .from(subscriptions)
      .where(eq(subscriptions.id, subscription.id))
      .for("update");
    if (!locked) throw new Error(`Subscription ${subscription.id} does not exist`);
    deviceLimit = locked.deviceLimit;
  }
  const allocation = await allocateAddress(
    tx,
    { id: subscription.id, deviceLimit },
    options.newSubscription ? 1 : undefined,
  );
  if (allocation.slot === null) throw new DeviceLimitReached(deviceLimit);
  const { server, addressIndex, slot } = allocation;
  if (!server || addressIndex === undefined) throw new NoVpnServerAvailable();
  if (addressIndex > poolCapacity(server.ipv4Cidr, server.ipv6Cidr))
    throw new AddressPoolExhausted(server.name);
  const { values, downloadToken } = newDeviceRow(sealer, {
    subscriptionId: subscription.id,
    slot,
    name: options.name,
    server,
    addressIndex,
  });
  const [device] = await tx.insert(devices).values(values).returning();
  return { device: device!, server, downloadToken };
}

/** A device row with fresh keys and download token; the token is returned once, in the clear. */
function newDeviceRow(
  sealer: Sealer,
  at: { subscriptionId: string; slot: number; name?: string; server: VpnServer; addressIndex: number },
): { values: PreparedDevice["values"]; downloadToken: string } {
  const { ipv4, ipv6 } = addressesAt(at.server.ipv4Cidr, at.server.ipv6Cidr, at.addressIndex);
  const keys = takeKeyPair();
  const downloadToken = generateToken();
  return {
    values: {
      subscriptionId: at.subscriptionId,
      slot: at.slot,
      name: at.name ?? `Device ${at.slot}`,
      vpnServerId: at.server.id,
      publicKey: keys.publicKey,
      privateKeySealed: sealer.seal(keys.privateKey),
      presharedKeySealed: sealer.seal(generatePresharedKey()),
      addressIndex: at.addressIndex,
      ipv4,
      ipv6,
      downloadTokenHash: hashToken(downloadToken),
      downloadTokenSealed: sealer.seal(downloadToken),
    },
    downloadToken,
  };
}

/** A device's row, made but not yet inserted (keys, sealed secrets, address). */
export interface PreparedDevice {
  values: typeof devices.$inferInsert & { slot: number };
  server: VpnServer;
  /** The capability token of the download URL, in the clear (only its hash is stored). */
  downloadToken: string;
}

/**
 * Slot 1 for subscriptions inserted in this same transaction (batched fulfilment): one
 * allocation for all of them, and their rows ready to insert with `insertPreparedDevices`.
 * Answers in the input order; an entry is undefined when no address was left for it (no
 * server, or the chosen server's pool is full), and the caller issues those one by one with
 * `issueDevice`, which explains why.
 */
export async function prepareFirstDevices(
  tx: Transaction,
  sealer: Sealer,
  newSubscriptions: Pick<Subscription, "id" | "deviceLimit">[],
): Promise<(PreparedDevice | undefined)[]> {
  const wanted = newSubscriptions.filter((subscription) => subscription.deviceLimit >= 1);
  if (wanted.length === 0) return newSubscriptions.map(() => undefined);
  const allocation = await allocateAddresses(tx, wanted.length);
  if (!allocation) return newSubscriptions.map(() => undefined);
  const { server, addressIndexes } = allocation;
  const prepared = new Map(
    addressIndexes.map((addressIndex, index) => {
      const subscriptionId = wanted[index]!.id;
      const row = newDeviceRow(sealer, { subscriptionId, slot: 1, server, addressIndex });
      return [subscriptionId, { ...row, server }] as const;
    }),
  );
  return newSubscriptions.map((subscription) => prepared.get(subscription.id));
}

/**
 * Inserts prepared devices in one statement; `alongside` (e.g. their config e-mails' outbox
 * rows) goes into the same statement as a data-modifying CTE, saving a round trip while the
 * VPN server's row is locked. Answers in the input order.
 */
export async function insertPreparedDevices(
  tx: Transaction,
  prepared: PreparedDevice[],
  alongside?: (tx: Transaction) => WithSubquery,
): Promise<IssuedDevice[]> {
  if (prepared.length === 0) return [];
  const values = prepared.map((entry) => entry.values);
  let inserted: Device[];
  if (alongside) {
    const newDevices = tx.$with("new_devices").as(tx.insert(devices).values(values).returning());
    inserted = (await tx.with(newDevices, alongside(tx)).select().from(newDevices)) as Device[];
  } else {
    inserted = await tx.insert(devices).values(values).returning();
  }
  const bySubscription = new Map(inserted.map((device) => [device.subscriptionId, device]));
  return prepared.map((entry) => ({
    device: bySubscription.get(entry.values.subscriptionId)!,
    server: entry.server,
    downloadToken: entry.downloadToken,
  }));
}

/** New keys and a new download token for the same slot and address (e.g. a leaked config). */
export async function regenerateDevice(
  tx: Transaction,
  sealer: Sealer,
  deviceId: string,
): Promise<IssuedDevice> {
  const [current] = await tx.select().from(devices).where(eq(devices.id, deviceId)).for("update");
  if (!current) throw new Error(`Device ${deviceId} does not exist`);
  const keys = generateKeyPair();
  const downloadToken = generateToken();
  const [device] = await tx
    .update(devices)
    .set({
      publicKey: keys.publicKey,
      privateKeySealed: sealer.seal(keys.privateKey),
      presharedKeySealed: sealer.seal(generatePresharedKey()),
      downloadTokenHash: hashToken(downloadToken),
      downloadTokenSealed: sealer.seal(downloadToken),
      activatedAt: null,
      activatedVia: null,
      updatedAt: new Date(),
    })
    .where(eq(devices.id, deviceId))
    .returning();
  const [server] = await tx.select().from(vpnServers).where(eq(vpnServers.id, device!.vpnServerId));
  return { device: device!, server: server!, downloadToken };
}

export async function revokeDevice(executor: Executor, deviceId: string, now = new Date()): Promise<void> {
  await executor
    .update(devices)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt)));
}

/** Revokes every live device of the given subscriptions; their peers leave the servers at the next agent sync. */
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

export function downloadTokenOf(device: Device, sealer: Sealer): string {
  return sealer.unseal(device.downloadTokenSealed);
}

export type DeviceAccess =
  | { state: "unknown" }
  | { state: "gone"; reason: string }
  | { state: "ok"; device: Device; server: VpnServer; subscription: Subscription };

const USABLE_STATUSES: Subscription["status"][] = ["active", "past_due"];

/** Resolves a capability token: unknown, gone (revoked or expired) or usable. */
export async function findDeviceByToken(
  executor: Executor,
  token: string,
  now = new Date(),
): Promise<DeviceAccess> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return { state: "unknown" };
  const [row] = await executor
    .select({ device: devices, server: vpnServers, subscription: subscriptions })
    .from(devices)
    .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(eq(devices.downloadTokenHash, hashToken(token)));
  if (!row) return { state: "unknown" };
  if (row.device.revokedAt) return { state: "gone", reason: "This config has been revoked." };
  if (!USABLE_STATUSES.includes(row.subscription.status) || row.subscription.expiresAt <= now) {
    return { state: "gone", reason: "The subscription of this config has ended." };
  }
  return { state: "ok", ...row };
}

/** The first QR view or download marks the device activated; later ones change nothing. */
export async function markActivated(
  executor: Executor,
  deviceId: string,
  via: "download" | "qr",
  now = new Date(),
): Promise<void> {
  await executor
    .update(devices)
    .set({ activatedAt: now, activatedVia: via })
    .where(and(eq(devices.id, deviceId), isNull(devices.activatedAt)));
}
