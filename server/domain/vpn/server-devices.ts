import { and, asc, eq, isNull } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { conflict } from "#server/domain/errors.ts";
import type { ConfigEmailDeps } from "#server/domain/mail/config-email.ts";
import { queueDeviceNoticeEmail } from "#server/domain/mail/customer-emails.ts";
import { moveDevicesOffServer } from "./device-moves.ts";
import { revokeDevice } from "./devices.ts";
import { lockServer } from "./server-edits.ts";

// Emptying a server that takes no new devices, so it can be removed: the demo's
// development server once the store goes live, or a real one being retired. `npm run vpn --
// move-devices` and `revoke-devices`; the staff console's "Move all devices" is the same move.

/** The sealer renders each moved device's new config for its owner's e-mail. */
export type ServerDevicesServices = ConfigEmailDeps & { mail: { wake(): void } };

/** A server that still takes new devices would refill as it empties: it must be drained first. */
async function outOfService(db: Database, ref: string) {
  return db.transaction(async (tx) => {
    const server = await lockServer(tx, ref);
    if (server.status === "active" && !server.development)
      throw conflict(
        `Drain ${server.name} first (npm run vpn -- drain-server ${server.name}): it takes new devices.`,
      );
    return server;
  });
}

/**
 * Moves every live device of `ref` (each owner gets an e-mail with the new config attached), to the server
 * `to` when given, else to the least-loaded other server with room. What no server can take
 * stays (`remaining`).
 */
export async function moveServerDevices(
  db: Database,
  services: ServerDevicesServices,
  ref: string,
  to?: string,
  now = new Date(),
) {
  const server = await outOfService(db, ref);
  const target = to === undefined ? undefined : await db.transaction((tx) => lockServer(tx, to));
  if (target?.id === server.id) throw conflict("A server's devices cannot be moved onto itself.");
  const { moved, remaining } = await moveDevicesOffServer(db, services, server.id, now, target?.id);
  services.mail.wake();
  return {
    emptied: server.name,
    moved: moved.length,
    remaining,
    to: [...new Set(moved.map((m) => m.to.name))],
  };
}

/** Revokes every live device of `ref` in one transaction; each owner gets the usual "revoked" e-mail. */
export async function revokeServerDevices(
  db: Database,
  services: ServerDevicesServices,
  ref: string,
  now = new Date(),
) {
  const server = await outOfService(db, ref);
  const revoked = await db.transaction(async (tx) => {
    const live = await tx
      .select({ device: devices, subscription: subscriptions })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(devices.vpnServerId, server.id), isNull(devices.revokedAt)))
      .orderBy(asc(devices.createdAt))
      .for("update", { of: devices });
    let count = 0;
    for (const { device, subscription } of live) {
      if (!(await revokeDevice(tx, device.id, now))) continue;
      await queueDeviceNoticeEmail(tx, services, subscription, device, "revoked", now);
      count++;
    }
    return count;
  });
  services.mail.wake();
  return { emptied: server.name, revoked };
}
