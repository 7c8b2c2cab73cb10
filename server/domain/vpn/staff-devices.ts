import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Transaction } from "#server/db/client.ts";
import {
  devices,
  subscriptions,
  vpnServers,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { queueConfigEmail, type ConfigEmailDeps } from "#server/domain/mail/config-email.ts";
import { queueDeviceNoticeEmail } from "#server/domain/mail/customer-emails.ts";
import { recordStaffAction, staffReasonSchema } from "#server/domain/ops/audit.ts";
import { replaceDeviceKeys } from "./keys.ts";
import type { AppServices } from "#server/services.ts";
import { revokeDevice } from "./devices.ts";
import { endedStatusOf, isUsable } from "./usable.ts";

// What staff do to one device from a subscription's page (issue 15), with the rules
// of the customer's own actions; each is recorded in the staff audit log in its transaction.

const target = { deviceId: z.uuid(), reason: staffReasonSchema };
export const revokeDeviceSchema = z.object(target).strict();
export const rekeyDeviceSchema = z.object(target).strict();
export const resendConfigSchema = z.object(target).strict();

type DeviceInput = z.infer<typeof revokeDeviceSchema>;

export type StaffDeviceServices = Pick<AppServices, "db" | "config" | "sealer" | "mail" | "logger">;

async function lockedDevice(tx: Transaction, deviceId: string) {
  const [row] = await tx
    .select({ device: devices, server: vpnServers, subscription: subscriptions })
    .from(devices)
    .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
    .leftJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .where(eq(devices.id, deviceId))
    .for("update", { of: devices });
  if (!row) throw notFound("There is no such device.");
  if (row.device.revokedAt || !row.server) throw conflict("This device has been revoked already.");
  return { ...row, server: row.server };
}

const usableOnly = (subscription: Parameters<typeof isUsable>[0], now: Date) => {
  if (!isUsable(subscription, now))
    throw conflict(`Its subscription is ${endedStatusOf(subscription)}: its config no longer works.`);
};

/** Queues the config e-mail; it hands out the config as it is now, which `configIssuedAt` records. */
async function emailConfig(
  tx: Transaction,
  services: ConfigEmailDeps,
  issued: { device: Device; server: VpnServer },
  subscription: Subscription,
  now: Date,
): Promise<string | null> {
  const queued = await queueConfigEmail(tx, services, issued, subscription);
  if (queued) await tx.update(devices).set({ configIssuedAt: now }).where(eq(devices.id, issued.device.id));
  return queued;
}

/**
 * A staff action on one device: `change` runs on the locked device, and its audit entry (with what
 * `change` returns as details) is written in the same transaction; the mail worker is woken after.
 */
function staffDeviceAction(
  action: string,
  change: (
    tx: Transaction,
    row: Awaited<ReturnType<typeof lockedDevice>>,
    services: StaffDeviceServices,
    now: Date,
  ) => Promise<Record<string, unknown>>,
) {
  return async (
    services: StaffDeviceServices,
    staff: SignedInStaff,
    input: DeviceInput,
    now = new Date(),
  ): Promise<{ deviceId: string }> => {
    await services.db.transaction(async (tx) => {
      const row = await lockedDevice(tx, input.deviceId);
      const details = await change(tx, row, services, now);
      await recordStaffAction(
        tx,
        staff,
        {
          action,
          targetType: "device",
          targetId: input.deviceId,
          reason: input.reason,
          details: { subscriptionId: row.subscription.id, slot: row.device.slot, ...details },
        },
        now,
      );
    });
    services.mail.wake();
    return { deviceId: input.deviceId };
  };
}

/** The customer's revoke: the peer leaves its node, the slot is free, the link answers 410, the customer is told. */
export const staffRevokeDevice = staffDeviceAction(
  "device.revoke",
  async (tx, { device, subscription }, services, now) => {
    await revokeDevice(tx, device.id, now);
    await queueDeviceNoticeEmail(tx, services, subscription, device, "revoked", now);
    return {};
  },
);

/**
 * The customer's new keys (a usable subscription only); the customer is sent the new config, since
 * staff, not they, asked for it and the old link no longer opens.
 */
export const staffRekeyDevice = staffDeviceAction(
  "device.rekey",
  async (tx, { device, server, subscription }, services, now) => {
    usableOnly(subscription, now);
    const rekeyed = await replaceDeviceKeys(tx, services.sealer, device.id, now);
    const emailId = await emailConfig(tx, services, { device: rekeyed!, server }, subscription, now);
    return { emailId };
  },
);

/** The config e-mail of a live device again, as a new outbox message with its current link. */
export const staffResendConfig = staffDeviceAction(
  "device.resend-config",
  async (tx, { device, server, subscription }, services, now) => {
    usableOnly(subscription, now);
    const emailId = await emailConfig(tx, services, { device, server }, subscription, now);
    if (!emailId) throw conflict("This subscription has no e-mail address to send the config to.");
    return { emailId };
  },
);
