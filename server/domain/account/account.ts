import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { addDeviceRefusal, type AddDeviceRefusal } from "#app/lib/device-actions.ts";
import { regionLabel } from "#app/lib/locations.ts";
import { findPlan, type PlanType } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type Subscription } from "#server/db/schema/index.ts";
import type { BillingServices } from "#server/domain/billing/fulfil.ts";
import { reversalDates } from "#server/domain/billing/history.ts";
import { queueDeviceNoticeEmail } from "#server/domain/mail/customer-emails.ts";
import { alternateOffer, downloadUrl, type AlternateOffer } from "#server/domain/vpn/config-file.ts";
import { isConfigOutdated } from "#server/domain/vpn/config-notices.ts";
import { replaceDeviceKeys } from "#server/domain/vpn/device-keys.ts";
import { moveDevice } from "#server/domain/vpn/device-moves.ts";
import { issueDevice, renameDevice, revokeDevice } from "#server/domain/vpn/devices.ts";
import { currentPeriodStart, transferThisPeriod, type DeviceTransfer } from "#server/domain/vpn/transfer.ts";
import { regionsWithRoom } from "#server/domain/vpn/servers.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import type { Customer } from "./customer-auth.ts";
import { deviceNotFound, subscriptionNotFound, subscriptionNotUsable } from "./errors.ts";

// What a signed-in customer sees and may change (decision 067). A customer owns the subscriptions
// whose `customer_email` is their verified sign-in address; every id from the browser is checked
// against that, and someone else's id is answered like one that does not exist.

export type AccountServices = BillingServices;

export type AccountSubscriptionStatus =
  "active" | "past_due" | "cancels" | "canceled" | "expired" | "refunded" | "disputed";

export interface AccountDevice {
  id: string;
  slot: number;
  name: string;
  server: { name: string; region: string } | null;
  createdAt: string;
  activatedAt: string | null;
  lastHandshakeAt: string | null;
  /** The data it moved in the subscription's current period; null when its node never reported any. */
  transfer: DeviceTransfer | null;
  /** The capability link of the .conf (the same as the success page's). */
  downloadUrl: string;
  /** "Can't connect on this network? Use port 443": the same device on its server's alternate port. */
  alternate: AlternateOffer | null;
  /** Its server changed what configs say since this one's config was handed out: download it again. */
  configOutdated: boolean;
  /** The regions it could be moved to now (others with room); empty hides the Move action. */
  moveRegions: string[];
}

export interface AccountSubscription {
  id: string;
  planType: PlanType;
  planName: string;
  price: string;
  period: string;
  status: AccountSubscriptionStatus;
  expiresAt: string;
  deviceLimit: number;
  /** Whether its devices may be added to and re-keyed: paid up and inside its period. */
  usable: boolean;
  /** Why "Add a device" is not offered now, or null when it is (decision 110). */
  addDevice: AddDeviceRefusal | null;
  /** When its payment went back, for a refunded or disputed one (decision 103). */
  reversedAt: string | null;
  devices: AccountDevice[];
}

const ownedBy = (customer: Customer) => sql`lower(${subscriptions.customerEmail}) = ${customer.email}`;

function statusOf(subscription: Subscription, now: Date): AccountSubscriptionStatus {
  if (subscription.status === "refunded" || subscription.status === "disputed") return subscription.status;
  if (subscription.status === "canceled") return "canceled";
  if (!isUsable(subscription, now)) return "expired";
  if (subscription.cancelAtPeriodEnd) return "cancels";
  return subscription.status === "past_due" ? "past_due" : "active";
}

/** Every subscription of the customer, newest first, each with its live devices by slot. */
export async function listAccount(
  services: Pick<AccountServices, "db" | "config" | "sealer">,
  customer: Customer,
  now = new Date(),
): Promise<AccountSubscription[]> {
  const rows = await services.db
    .select({
      subscription: subscriptions,
      device: devices,
      server: vpnServers,
      periodStart: sql<Date>`${currentPeriodStart(subscriptions)}`.mapWith(subscriptions.createdAt),
    })
    .from(subscriptions)
    .leftJoin(devices, and(eq(devices.subscriptionId, subscriptions.id), isNull(devices.revokedAt)))
    .leftJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .where(ownedBy(customer))
    .orderBy(desc(subscriptions.createdAt), asc(devices.slot));
  const roomIn = rows.length > 0 ? await regionsWithRoom(services.db) : [];
  const byId = new Map<string, AccountSubscription>();
  for (const { subscription, device, server, periodStart } of rows) {
    let entry = byId.get(subscription.id);
    if (!entry) {
      const plan = findPlan(subscription.planId);
      const usable = isUsable(subscription, now);
      entry = {
        id: subscription.id,
        planType: subscription.planType,
        planName: plan?.name ?? subscription.planId,
        price: plan?.price ?? "",
        period: plan?.period ?? "",
        status: statusOf(subscription, now),
        expiresAt: subscription.expiresAt.toISOString(),
        deviceLimit: subscription.deviceLimit,
        usable,
        addDevice: null,
        reversedAt: null,
        devices: [],
      };
      byId.set(subscription.id, entry);
    }
    // An ended subscription's links answer 410: it lists no devices to download.
    if (device && entry.usable) {
      entry.devices.push({
        id: device.id,
        slot: device.slot,
        name: device.name ?? `Device ${device.slot}`,
        server: server ? { name: server.name, region: server.region } : null,
        createdAt: device.createdAt.toISOString(),
        activatedAt: device.activatedAt?.toISOString() ?? null,
        lastHandshakeAt: device.lastHandshakeAt?.toISOString() ?? null,
        transfer: transferThisPeriod(device, periodStart),
        downloadUrl: downloadUrl(services, device),
        alternate: (server && alternateOffer(downloadUrl(services, device), server)) ?? null,
        configOutdated: server ? isConfigOutdated(device, server) : false,
        moveRegions: roomIn.filter((region) => region !== server?.region),
      });
    }
  }
  const listed = [...byId.values()];
  for (const entry of listed)
    entry.addDevice = addDeviceRefusal({
      usable: entry.usable,
      deviceLimit: entry.deviceLimit,
      liveDevices: entry.devices.length,
      mayClaimSlot: true,
      roomForDevice: roomIn.length > 0,
    });
  const reversed = listed.filter((entry) => entry.status === "refunded" || entry.status === "disputed");
  if (reversed.length > 0) {
    const dates = await reversalDates(
      services.db,
      reversed.map((entry) => entry.id),
    );
    for (const entry of reversed) entry.reversedAt = dates.get(entry.id)?.toISOString() ?? null;
  }
  return listed;
}

/** The ids of every subscription the customer owns. */
export async function ownedSubscriptionIds(executor: Executor, customer: Customer): Promise<string[]> {
  const rows = await executor.select({ id: subscriptions.id }).from(subscriptions).where(ownedBy(customer));
  return rows.map((row) => row.id);
}

export async function ownedSubscription(executor: Executor, customer: Customer, subscriptionId: string) {
  const [subscription] = await executor
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, subscriptionId), ownedBy(customer)));
  if (!subscription) throw subscriptionNotFound();
  return subscription;
}

async function ownedLiveDevice(executor: Executor, customer: Customer, deviceId: string) {
  const [row] = await executor
    .select({ device: devices, subscription: subscriptions })
    .from(devices)
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt), ownedBy(customer)));
  if (!row) throw deviceNotFound();
  return row;
}

/** The next device of a subscription: the VPN area's `issueDevice`, its rules and its "Device limit reached". */
export async function addAccountDevice(
  services: AccountServices,
  customer: Customer,
  subscriptionId: string,
  now = new Date(),
): Promise<{ deviceId: string; slot: number }> {
  const issued = await services.db.transaction(async (tx) => {
    const subscription = await ownedSubscription(tx, customer, subscriptionId);
    if (!isUsable(subscription, now)) throw subscriptionNotUsable(endedStatusOf(subscription));
    return issueDevice(tx, services, subscription);
  });
  services.mail.wake();
  return { deviceId: issued.device.id, slot: issued.device.slot };
}

export async function renameAccountDevice(
  services: Pick<AccountServices, "db">,
  customer: Customer,
  deviceId: string,
  name: string,
  now = new Date(),
): Promise<{ deviceId: string; name: string }> {
  await ownedLiveDevice(services.db, customer, deviceId);
  if (!(await renameDevice(services.db, deviceId, name, now))) throw deviceNotFound();
  return { deviceId, name };
}

/**
 * Revokes the device: its peer leaves its node, its slot is free, its link answers 410. The
 * customer gets a "was this you?" e-mail, once, in the same transaction.
 */
export async function revokeAccountDevice(
  services: Pick<AccountServices, "db" | "config" | "mail">,
  customer: Customer,
  deviceId: string,
  now = new Date(),
): Promise<{ deviceId: string }> {
  await services.db.transaction(async (tx) => {
    const { device, subscription } = await ownedLiveDevice(tx, customer, deviceId);
    if (await revokeDevice(tx, deviceId, now))
      await queueDeviceNoticeEmail(tx, services, subscription, device, "revoked", now);
  });
  services.mail.wake();
  return { deviceId };
}

/** New keys for a device of a usable subscription (the VPN area's `replaceDeviceKeys`). */
export async function replaceAccountDeviceKeys(
  services: Pick<AccountServices, "db" | "sealer" | "config" | "mail">,
  customer: Customer,
  deviceId: string,
  now = new Date(),
): Promise<{ deviceId: string; downloadUrl: string }> {
  const device = await services.db.transaction(async (tx) => {
    const { subscription } = await ownedLiveDevice(tx, customer, deviceId);
    if (!isUsable(subscription, now)) throw subscriptionNotUsable(endedStatusOf(subscription));
    const rekeyed = await replaceDeviceKeys(tx, services.sealer, deviceId, now);
    if (!rekeyed) throw deviceNotFound();
    await queueDeviceNoticeEmail(tx, services, subscription, rekeyed, "rekeyed", now);
    return rekeyed;
  });
  services.mail.wake();
  return { deviceId, downloadUrl: downloadUrl(services, device) };
}

/**
 * Moves a device of a usable subscription to another region (the VPN area's `moveDevice`): same
 * keys and link, a new server and address; its owner gets a "was this you?" e-mail.
 */
export async function moveAccountDevice(
  services: Pick<AccountServices, "db" | "sealer" | "config" | "mail">,
  customer: Customer,
  deviceId: string,
  region: string,
  now = new Date(),
): Promise<{
  deviceId: string;
  server: { name: string; region: string };
  location: string;
  downloadUrl: string;
}> {
  const moved = await services.db.transaction(async (tx) => {
    const { subscription } = await ownedLiveDevice(tx, customer, deviceId);
    if (!isUsable(subscription, now)) throw subscriptionNotUsable(endedStatusOf(subscription));
    const result = await moveDevice(tx, deviceId, { region }, now);
    await queueDeviceNoticeEmail(tx, services, subscription, result.device, "moved", now, {
      location: regionLabel(result.to.region),
    });
    return result;
  });
  services.mail.wake();
  return {
    deviceId,
    server: { name: moved.to.name, region: moved.to.region },
    location: regionLabel(moved.to.region),
    downloadUrl: downloadUrl(services, moved.device),
  };
}
