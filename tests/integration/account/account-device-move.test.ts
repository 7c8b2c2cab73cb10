// POST /api/account/devices/move as the account page calls it (decision 072): a device keeps its
// slot, name, keys and link; it gets a server and address in the chosen region.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnFreeAddresses, vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { peerChangesSince, currentPeerVersion } from "#server/domain/vpn/peer-changes.ts";
import { queuedEmails } from "../../support/staff.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import {
  addTestVpnServer,
  desiredPeerKeys,
  deviceRow,
  treatDevelopmentServerAsReal,
} from "../../support/vpn.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("moving a device to another location, on %s", (kind) => {
  let app: TestApp;
  let lagos: VpnServer;
  const buyers: Record<"ada" | "bola", { cookie: string; subscription: AccountSubscription }> = {} as never;

  async function listOf(cookie: string): Promise<AccountSubscription[]> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    return ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
  }

  async function serverRow(id: string) {
    const [row] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, id));
    return row!;
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    await treatDevelopmentServerAsReal(app.services.db);
    lagos = (await app.services.db.select().from(vpnServers))[0]!;
    for (const name of ["ada", "bola"] as const) {
      await buy(app, "pro-monthly", `${name}@example.com`);
      const cookie = await signedInCustomer(app, `${name}@example.com`);
      const [subscription] = await listOf(cookie);
      buyers[name] = { cookie, subscription: subscription! };
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it("offers no move while only the device's own region has room", async () => {
    const device = (await listOf(buyers.ada.cookie))[0]!.devices[0]!;
    expect(device.server).toMatchObject({ region: "ng-lagos" });
    expect(device.moveRegions).toEqual([]);
    const refused = await accountRequest(
      app,
      "devices/move",
      { deviceId: device.id, region: "ng-abuja" },
      buyers.ada.cookie,
    );
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: "No room there",
      message: "No VPN server in Abuja, Nigeria can take another device right now.",
    });
  });

  it("answers 401 signed out, 404 for someone else's or an unknown device, 400 for a bad body", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-abuja-1", region: "ng-abuja", octet: 81 });
    const bolasDevice = buyers.bola.subscription.devices[0]!.id;
    const body = { deviceId: bolasDevice, region: "ng-abuja" };
    const signedOut = await accountRequest(app, "devices/move", body);
    expect(signedOut.status).toBe(401);
    expect(await signedOut.json()).toMatchObject({ error: "Unauthorized" });

    const others = await accountRequest(app, "devices/move", body, buyers.ada.cookie);
    expect(others.status).toBe(404);
    const unknown = await accountRequest(
      app,
      "devices/move",
      { ...body, deviceId: UNKNOWN_ID },
      buyers.ada.cookie,
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(await others.json());
    expect((await deviceRow(app.services.db, bolasDevice)).vpnServerId).toBe(lagos.id);

    for (const bad of [{ deviceId: bolasDevice }, { ...body, region: "" }, { ...body, extra: 1 }]) {
      const response = await accountRequest(app, "devices/move", bad, buyers.ada.cookie);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });

  it("moves the device: new server and address, old address freed, peer leaves the old node for the new", async () => {
    const { cookie } = buyers.ada;
    const listed = (await listOf(cookie))[0]!.devices[0]!;
    expect(listed.moveRegions).toEqual(["ng-abuja"]);
    const before = await deviceRow(app.services.db, listed.id);
    const [abuja] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, "ng-abuja-1"));
    const lagosBefore = await serverRow(lagos.id);
    const versions = {
      lagos: await currentPeerVersion(app.services.db, lagos.id),
      abuja: await currentPeerVersion(app.services.db, abuja!.id),
    };
    expect(await desiredPeerKeys(app.services.db, app.services.sealer, lagos)).toContain(before.publicKey);

    const response = await accountRequest(
      app,
      "devices/move",
      { deviceId: listed.id, region: "ng-abuja" },
      cookie,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      deviceId: listed.id,
      server: { name: "ng-abuja-1", region: "ng-abuja" },
      location: "Abuja, Nigeria",
      downloadUrl: listed.downloadUrl,
    });

    const after = await deviceRow(app.services.db, listed.id);
    expect(after).toMatchObject({
      vpnServerId: abuja!.id,
      slot: before.slot,
      name: before.name,
      publicKey: before.publicKey,
      privateKeySealed: before.privateKeySealed,
      downloadTokenHash: before.downloadTokenHash,
      ipv4: "10.81.0.2",
      lastHandshakeAt: null,
    });
    // The old offset waits in the old server's free list; the counters follow the device.
    const freed = await app.services.db
      .select()
      .from(vpnFreeAddresses)
      .where(
        and(eq(vpnFreeAddresses.serverId, lagos.id), eq(vpnFreeAddresses.addressIndex, before.addressIndex)),
      );
    expect(freed).toHaveLength(1);
    expect((await serverRow(lagos.id)).liveDevices).toBe(lagosBefore.liveDevices - 1);
    expect((await serverRow(abuja!.id)).liveDevices).toBe(1);

    expect(await desiredPeerKeys(app.services.db, app.services.sealer, lagos)).not.toContain(
      before.publicKey,
    );
    expect(await desiredPeerKeys(app.services.db, app.services.sealer, abuja!)).toContain(before.publicKey);
    for (const [server, version] of [
      [lagos.id, versions.lagos],
      [abuja!.id, versions.abuja],
    ] as const)
      expect(await peerChangesSince(app.services.db, server, String(version))).toMatchObject({
        state: "changed",
        publicKeys: [before.publicKey],
      });

    // The same link now serves the config for the new server; the page shows the new location.
    const config = await (await app.request(new URL(listed.downloadUrl).pathname)).text();
    expect(config).toContain("Address = 10.81.0.2/32");
    expect(config).toContain(`PublicKey = ${abuja!.publicKey}`);
    expect(config).toContain(app.services.sealer.unseal(before.privateKeySealed));
    const relisted = (await listOf(cookie))[0]!.devices[0]!;
    expect(relisted.server).toEqual({ name: "ng-abuja-1", region: "ng-abuja" });
    expect(relisted.moveRegions).toEqual(["ng-lagos"]);

    const [notice, ...more] = (await queuedEmails(app, "ada@example.com")).filter(
      (email) => email.kind === "device-moved",
    );
    expect(more).toEqual([]);
    expect(notice!.subject).toBe("Device 1 moved to Abuja, Nigeria on your NaijaLink plan");
    expect(notice!.text).toContain("Location: Abuja, Nigeria");
    expect(notice!.text).toContain("Was this you? If you did not move this device");
    expect(notice!.text).toContain("http://localhost:3000/account");
  });

  it("answers 409 for the region the device is in, or one whose servers are full or disabled, and changes nothing", async () => {
    const adasDevice = buyers.ada.subscription.devices[0]!.id;
    const same = await accountRequest(
      app,
      "devices/move",
      { deviceId: adasDevice, region: "ng-abuja" },
      buyers.ada.cookie,
    );
    expect(same.status).toBe(409);
    expect(await same.json()).toEqual({
      error: "Device cannot be moved",
      message: "This device is already in Abuja, Nigeria.",
    });

    await app.services.db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(eq(vpnServers.name, "ng-abuja-1"));
    const bolasDevice = buyers.bola.subscription.devices[0]!.id;
    const before = await deviceRow(app.services.db, bolasDevice);
    expect((await listOf(buyers.bola.cookie))[0]!.devices[0]!.moveRegions).toEqual([]);
    const full = await accountRequest(
      app,
      "devices/move",
      { deviceId: bolasDevice, region: "ng-abuja" },
      buyers.bola.cookie,
    );
    expect(full.status).toBe(409);
    expect(await full.json()).toMatchObject({ error: "No room there" });
    expect(await deviceRow(app.services.db, bolasDevice)).toEqual(before);
    await app.services.db
      .update(vpnServers)
      .set({ status: "active" })
      .where(eq(vpnServers.name, "ng-abuja-1"));
  });

  it("answers 404 for a revoked device", async () => {
    const { cookie, subscription } = buyers.bola;
    const deviceId = subscription.devices[0]!.id;
    expect((await accountRequest(app, "devices/revoke", { deviceId }, cookie)).status).toBe(200);
    const response = await accountRequest(app, "devices/move", { deviceId, region: "ng-abuja" }, cookie);
    expect(response.status).toBe(404);
  });
});
