import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { DeviceLimitReached, issueDevice } from "#server/domain/vpn/devices.ts";
import { createSealer } from "#server/secrets.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";
import { addTestVpnServer, bareVpnServices } from "../../support/vpn.ts";

const sealer = createSealer(Buffer.alloc(32, 9).toString("base64"));
const services = bareVpnServices(sealer);

async function newSubscription(handle: DatabaseHandle, deviceLimit: number, id = crypto.randomUUID()) {
  const [subscription] = await handle.db
    .insert(subscriptions)
    .values({
      planId: deviceLimit === 1 ? "basic-monthly" : "pro-monthly",
      planType: deviceLimit === 1 ? "basic" : "pro_monthly",
      deviceLimit,
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
      checkoutSessionId: `cs_test_${id}`,
    })
    .returning();
  return subscription!;
}

describe.each(databaseKinds)("issuing devices on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    ignoreTerminatedConnections(handle);
    await handle?.close();
    handle = undefined;
  });

  // PGlite has one connection: create the subscription before opening the transaction.
  async function issueForNewSubscription(db: DatabaseHandle) {
    const subscription = await newSubscription(db, 1);
    return db.db.transaction((tx) => issueDevice(tx, services, subscription));
  }

  async function withServer() {
    handle = await createTestDatabase(kind);
    const server = await addTestVpnServer(handle.db);
    return { handle, server };
  }

  it("never gives two of 200 concurrent devices the same address", async () => {
    const { handle } = await withServer();
    const subscriptionList = await Promise.all(Array.from({ length: 200 }, () => newSubscription(handle, 1)));
    const issued = await Promise.all(
      subscriptionList.map((subscription) =>
        handle.db.transaction((tx) => issueDevice(tx, services, subscription)),
      ),
    );
    const v4 = new Set(issued.map((entry) => entry.device.ipv4));
    const v6 = new Set(issued.map((entry) => entry.device.ipv6));
    expect(v4.size).toBe(200);
    expect(v6.size).toBe(200);
    // The lowest free addresses: .2 up to .201.
    const indexes = issued.map((entry) => entry.device.addressIndex).sort((a, b) => a - b);
    expect(indexes[0]).toBe(2);
    expect(indexes.at(-1)).toBe(201);
  }, 180_000);

  it("fills the slots of one subscription under concurrency and refuses one too many", async () => {
    const { handle } = await withServer();
    const subscription = await newSubscription(handle, 3);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => handle.db.transaction((tx) => issueDevice(tx, services, subscription))),
    );
    const issued = results.filter((result) => result.status === "fulfilled");
    const refused = results.filter((result) => result.status === "rejected");
    expect(issued).toHaveLength(3);
    expect(
      refused.every((result) => (result as PromiseRejectedResult).reason instanceof DeviceLimitReached),
    ).toBe(true);
    const slots = (
      await handle.db.select().from(devices).where(eq(devices.subscriptionId, subscription.id))
    ).map((d) => d.slot);
    expect(slots.sort()).toEqual([1, 2, 3]);
  });

  it("refuses a second device on a one-device plan", async () => {
    const { handle } = await withServer();
    const subscription = await newSubscription(handle, 1);
    await handle.db.transaction((tx) => issueDevice(tx, services, subscription));
    await expect(
      handle.db.transaction((tx) => issueDevice(tx, services, subscription)),
    ).rejects.toBeInstanceOf(DeviceLimitReached);
  });

  it("reuses the address of a revoked device and prefers the least-loaded server", async () => {
    const { handle, server } = await withServer();
    const first = await issueForNewSubscription(handle);
    await handle.db.update(devices).set({ revokedAt: new Date() }).where(eq(devices.id, first.device.id));
    const second = await issueForNewSubscription(handle);
    expect(second.device.ipv4).toBe(first.device.ipv4);
    expect(second.server.id).toBe(server.id);
    const other = await addTestVpnServer(handle.db, { name: "ng-abuja-1", octet: 67 });
    const third = await issueForNewSubscription(handle);
    expect(third.server.id).toBe(other.id);
    await handle.db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, other.id));
    const fourth = await issueForNewSubscription(handle);
    expect(fourth.server.id).toBe(server.id);
  });

  it("stores private keys and tokens only sealed or hashed", async () => {
    const { handle } = await withServer();
    const issued = await issueForNewSubscription(handle);
    const [row] = await handle.db.select().from(devices).where(eq(devices.id, issued.device.id));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(sealer.unseal(row!.downloadTokenSealed));
    expect(stored).not.toContain(sealer.unseal(row!.privateKeySealed));
    expect(stored).not.toContain(sealer.unseal(row!.presharedKeySealed));
  });
});
