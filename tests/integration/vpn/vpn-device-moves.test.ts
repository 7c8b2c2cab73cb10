// The VPN area's moves (decision 072): `moveDevice` to a named server, and
// `moveDevicesOffServer`, which the staff console uses to empty a server taken out of service.
import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { DeviceNotMovable, moveDevice, moveDevicesOffServer } from "#server/domain/vpn/device-moves.ts";
import { issueDevice, revokeDevice } from "#server/domain/vpn/devices.ts";
import { runServerCommand } from "#server/domain/vpn/server-admin.ts";
import { createSealer } from "#server/secrets.ts";
import { renderAsSent } from "../../support/outbox.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";
import {
  addTestSubscription,
  addTestVpnServer,
  bareVpnServices,
  desiredPeerKeys,
  deviceRow,
} from "../../support/vpn.ts";

const sealer = createSealer(Buffer.alloc(32, 9).toString("base64"));

describe.each(databaseKinds)("moving devices between VPN servers on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    ignoreTerminatedConnections(handle);
    await handle?.close();
    handle = undefined;
  });

  /** Only `server` takes new devices while they are issued; every server is active afterwards. */
  async function issueOn(db: DatabaseHandle, server: VpnServer, count: number) {
    const services = bareVpnServices(sealer);
    await db.db.update(vpnServers).set({ status: "draining" });
    await db.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, server.id));
    const issued = [];
    for (let index = 0; index < count; index++) {
      const subscription = await addTestSubscription(db.db, { customerEmail: `owner${index}@example.com` });
      issued.push((await db.db.transaction((tx) => issueDevice(tx, services, subscription))).device);
    }
    await db.db.update(vpnServers).set({ status: "active" });
    return issued;
  }

  async function serverRow(db: DatabaseHandle, id: string) {
    const [row] = await db.db.select().from(vpnServers).where(eq(vpnServers.id, id));
    return row!;
  }

  it("empties a server into the least-loaded server of its region, and the server can then be removed", async () => {
    handle = await createTestDatabase(kind);
    const draining = await addTestVpnServer(handle.db, { name: "ng-lagos-1", octet: 66 });
    const sameRegion = await addTestVpnServer(handle.db, { name: "ng-lagos-2", octet: 67 });
    const otherRegion = await addTestVpnServer(handle.db, {
      name: "ng-abuja-1",
      region: "ng-abuja",
      octet: 68,
    });
    // The other Lagos server is busier than Abuja: only the region preference sends devices there.
    await issueOn(handle, sameRegion, 1);
    const moving = await issueOn(handle, draining, 3);
    await handle.db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, draining.id));
    const services = bareVpnServices(sealer);
    const now = new Date("2026-11-24T09:00:00Z");

    const result = await moveDevicesOffServer(handle.db, services, draining.id, now);
    expect(result.remaining).toBe(0);
    expect(result.moved.map((entry) => entry.device.id)).toEqual(moving.map((device) => device.id));
    expect(new Set(result.moved.map((entry) => entry.to.id))).toEqual(new Set([sameRegion.id]));
    for (const device of moving) {
      const row = await deviceRow(handle.db, device.id);
      expect(row).toMatchObject({
        vpnServerId: sameRegion.id,
        publicKey: device.publicKey,
        slot: device.slot,
      });
      expect(row.ipv4).toMatch(/^10\.67\.0\.\d+$/);
    }
    expect(await desiredPeerKeys(handle.db, sealer, draining)).toEqual([]);
    expect((await desiredPeerKeys(handle.db, sealer, sameRegion)).sort()).toEqual(
      expect.arrayContaining(moving.map((device) => device.publicKey)),
    );
    expect(await desiredPeerKeys(handle.db, sealer, otherRegion)).toEqual([]);
    expect(await serverRow(handle, draining.id)).toMatchObject({ liveDevices: 0 });
    expect(await serverRow(handle, sameRegion.id)).toMatchObject({ liveDevices: 4 });

    // Each owner is told once, with where the device is now and what to do; no "was this you?".
    const notices = await Promise.all(
      services.queued
        .filter((email) => email.template === "device-relocated")
        .map((email) => renderAsSent(services.config, email)),
    );
    expect(notices.map((email) => email.to)).toEqual([
      "owner0@example.com",
      "owner1@example.com",
      "owner2@example.com",
    ]);
    expect(notices[0]!.subject).toBe(
      "NaijaLink moved Device 1 to another server: its new config is attached",
    );
    expect(notices[0]!.text).toContain("Its server is being taken out of service");
    expect(notices[0]!.text).toContain("Location: Lagos, Nigeria");
    expect(notices[0]!.text).toContain("switch the old tunnel off first");
    expect(notices[0]!.text).toContain("http://localhost:3000/account");
    expect(notices[0]!.text).not.toContain("Was this you?");
    // The new config itself, for the server it is on now, and its QR code (decision 130).
    const [conf, qr] = notices[0]!.attachments ?? [];
    expect(conf).toMatchObject({ filename: "NaijaLink1.conf", contentType: "text/plain; charset=utf-8" });
    const moved0 = await deviceRow(handle.db, moving[0]!.id);
    expect(conf!.content).toContain(`Address = ${moved0.ipv4}/32`);
    expect(qr).toMatchObject({ filename: "config-qr.png", contentType: "image/png", contentId: "config-qr" });
    // What the owner now holds is current: no "download it again" for the moved devices.
    expect(moved0.configIssuedAt.getTime()).toBe(now.getTime());

    expect(
      await runServerCommand(
        handle.db,
        {
          mail: { ...services.mail, wake() {} },
          sealer,
          config: { ...services.config, VPN_DNS: "1.1.1.1", NAIJALINK_MODE: "demo" },
        },
        { command: "remove-server", server: draining.name },
      ),
    ).toEqual({ removed: draining.name });
  });

  it("moves what fits and reports the devices left when no other server has room", async () => {
    handle = await createTestDatabase(kind);
    const draining = await addTestVpnServer(handle.db, { name: "ng-lagos-1", octet: 66 });
    // A /30 holds one device.
    const tiny = await addTestVpnServer(handle.db, {
      name: "ng-abuja-1",
      region: "ng-abuja",
      octet: 69,
      ipv4Prefix: 30,
    });
    const moving = await issueOn(handle, draining, 2);

    const result = await moveDevicesOffServer(handle.db, bareVpnServices(sealer), draining.id);
    expect(result.moved.map((entry) => [entry.device.id, entry.to.id])).toEqual([[moving[0]!.id, tiny.id]]);
    expect(result.remaining).toBe(1);
    expect((await deviceRow(handle.db, moving[1]!.id)).vpnServerId).toBe(draining.id);
    expect(await serverRow(handle, draining.id)).toMatchObject({ liveDevices: 1 });
  });

  it("moves a device to a named server, and refuses a revoked device or the server it is on", async () => {
    handle = await createTestDatabase(kind);
    const from = await addTestVpnServer(handle.db, { name: "ng-lagos-1", octet: 66 });
    const to = await addTestVpnServer(handle.db, { name: "ng-lagos-2", octet: 67 });
    const [device, revoked] = await issueOn(handle, from, 2);
    await revokeDevice(handle.db, revoked!.id);
    const db = handle.db;

    await expect(db.transaction((tx) => moveDevice(tx, device!.id, { serverId: from.id }))).rejects.toThrow(
      DeviceNotMovable,
    );
    await expect(db.transaction((tx) => moveDevice(tx, revoked!.id, { serverId: to.id }))).rejects.toThrow(
      "This device is revoked or does not exist.",
    );
    const moved = await db.transaction((tx) => moveDevice(tx, device!.id, { serverId: to.id }));
    expect(moved).toMatchObject({ from: { id: from.id }, to: { id: to.id } });
    expect(moved.device).toMatchObject({
      vpnServerId: to.id,
      addressIndex: 2,
      ipv4: "10.67.0.2",
      ipv6: "fd67::2",
    });
    const rows = await db
      .select()
      .from(vpnServers)
      .where(inArray(vpnServers.id, [from.id, to.id]));
    expect(Object.fromEntries(rows.map((row) => [row.name, row.liveDevices]))).toEqual({
      "ng-lagos-1": 0,
      "ng-lagos-2": 1,
    });
  });

  it("moves devices at once in both directions without a deadlock or a shared address", async () => {
    handle = await createTestDatabase(kind);
    const lagos = await addTestVpnServer(handle.db, { name: "ng-lagos-1", octet: 66 });
    const abuja = await addTestVpnServer(handle.db, { name: "ng-abuja-1", region: "ng-abuja", octet: 68 });
    const fromLagos = await issueOn(handle, lagos, 6);
    const fromAbuja = await issueOn(handle, abuja, 6);
    const db = handle.db;
    const moves = [
      ...fromLagos.map((device) => ({ device, region: "ng-abuja" })),
      ...fromAbuja.map((device) => ({ device, region: "ng-lagos" })),
    ];
    const moved = await Promise.all(
      moves.map(({ device, region }) => db.transaction((tx) => moveDevice(tx, device.id, { region }))),
    );
    const places = moved.map((entry) => `${entry.to.name}/${entry.device.addressIndex}`);
    expect(new Set(places).size).toBe(12);
    expect(moved.filter((entry) => entry.to.id === abuja.id)).toHaveLength(6);
    expect(await serverRow(handle, lagos.id)).toMatchObject({ liveDevices: 6 });
    expect(await serverRow(handle, abuja.id)).toMatchObject({ liveDevices: 6 });
  });
});
