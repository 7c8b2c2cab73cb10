import { and, eq, isNull, notInArray } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { devices, type Device } from "#server/db/schema/index.ts";
import { invalidInput } from "#server/domain/errors.ts";
import { liveDevices } from "./devices.ts";

// A subscription's device limit changes with its plan (billing's plan-change.ts). Devices are
// the VPN area's: billing says which to keep, and this file revokes the rest and moves the kept
// ones into the slots the new limit allows.

/**
 * Whether `keepDeviceIds` is a valid choice for a limit of `limit` among the live devices:
 * needed (and exactly `limit` of them) only when there are more live devices than the limit.
 */
export function checkKeepChoice(
  live: Pick<Device, "id">[],
  limit: number,
  keepDeviceIds: string[] | undefined,
) {
  if (live.length <= limit) return;
  const liveIds = new Set(live.map((device) => device.id));
  const chosen = new Set(keepDeviceIds ?? []);
  if (chosen.size !== limit || [...chosen].some((id) => !liveIds.has(id)))
    throw invalidInput(
      `This plan allows ${limit} device${limit === 1 ? "" : "s"}: choose exactly ${limit} of your ${live.length} devices to keep.`,
    );
}

/**
 * Brings the subscription's live devices within `limit`: keeps `keepDeviceIds` (or, without a
 * valid choice, the lowest slots), revokes the others, and renumbers the kept ones into slots
 * 1..limit so a free slot above the limit is never offered again. Call with the subscription
 * row locked. Answers the devices revoked.
 */
export async function fitDevicesToLimit(
  tx: Transaction,
  subscriptionId: string,
  limit: number,
  keepDeviceIds: string[] | null | undefined,
  now: Date,
): Promise<Device[]> {
  const live = await liveDevices(tx, subscriptionId);
  if (live.length <= limit && live.every((device) => device.slot <= limit)) return [];
  const chosen = new Set((keepDeviceIds ?? []).filter((id) => live.some((device) => device.id === id)));
  const keep =
    chosen.size > 0 && chosen.size <= limit
      ? live.filter((device) => chosen.has(device.id))
      : live.slice(0, limit);
  const keepIds = keep.map((device) => device.id);
  const revoked = await tx
    .update(devices)
    .set({ revokedAt: now, updatedAt: now })
    .where(
      and(
        eq(devices.subscriptionId, subscriptionId),
        isNull(devices.revokedAt),
        keepIds.length ? notInArray(devices.id, keepIds) : undefined,
      ),
    )
    .returning();
  // Kept devices above the limit take the free slots below it, lowest first.
  const used = new Set(keep.filter((device) => device.slot <= limit).map((device) => device.slot));
  const free = Array.from({ length: limit }, (_, index) => index + 1).filter((slot) => !used.has(slot));
  for (const device of keep.filter((entry) => entry.slot > limit)) {
    await tx.update(devices).set({ slot: free.shift()!, updatedAt: now }).where(eq(devices.id, device.id));
  }
  return revoked.sort((a, b) => a.slot - b.slot);
}
