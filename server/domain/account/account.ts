import { and, eq, isNull, sql } from "drizzle-orm";
import { regionLabel } from "#core/locations.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import type { BillingServices } from "#server/domain/billing/fulfil.ts";
import { queueDeviceNoticeEmail } from "#server/domain/mail/customer-emails.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { replaceDeviceKeys } from "#server/domain/vpn/keys.ts";
import { moveDevice } from "#server/domain/vpn/device-moves.ts";
import { issueDevice, renameDevice, revokeDevice } from "#server/domain/vpn/devices.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import type { Customer } from "./customer-auth.ts";
import { deviceNotFound, subscriptionNotFound, subscriptionNotUsable } from "./errors.ts";

// What a signed-in customer sees and may change. A customer owns the subscriptions
// whose `customer_email` is their verified sign-in address; every id from the browser is checked
// against that, and someone else's id is answered like one that does not exist.

export type AccountServices = BillingServices;

export const ownedBy = (customer: Customer) => sql`lower(${subscriptions.customerEmail}) = ${customer.email}`;

export {
  listAccount,
  type AccountDevice,
  type AccountSubscription,
  type AccountSubscriptionStatus,
} from "./account-view.ts";

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
