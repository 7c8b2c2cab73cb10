import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptions, vpnServers } from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { fullPeerSet } from "#server/domain/vpn/node-peers.ts";
import { peerChangesSince, currentPeerVersion } from "#server/domain/vpn/peer-changes.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { deviceRow } from "../../support/vpn.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("the customer's account API, on %s", (kind) => {
  let app: TestApp;
  /** Each buyer's session cookie and Pro subscription. */
  const buyers: Record<"ada" | "bola", { cookie: string; subscription: AccountSubscription }> = {} as never;

  async function listOf(cookie: string): Promise<AccountSubscription[]> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    return ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
  }

  async function downloadStatus(url: string) {
    return (await app.request(new URL(url).pathname)).status;
  }

  async function peerKeys() {
    const [server] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.development, true));
    const set = await fullPeerSet(app.services.db, app.services.sealer, server!, new Date());
    if (set.kind !== "full") throw new Error("expected the full peer set");
    return { server: server!, keys: set.peers.map((peer) => peer.publicKey) };
  }

  async function publicKeyOf(deviceId: string) {
    return (await deviceRow(app.services.db, deviceId)).publicKey;
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
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

  /** Every endpoint with a body naming one of bola's ids, for the authorisation checks. */
  function bolasIds() {
    const { subscription } = buyers.bola;
    const deviceId = subscription.devices[0]!.id;
    return [
      { path: "devices/add", body: { subscriptionId: subscription.id } },
      { path: "devices/rename", body: { deviceId, name: "Mine now" } },
      { path: "devices/revoke", body: { deviceId } },
      { path: "devices/new-keys", body: { deviceId } },
      { path: "devices/move", body: { deviceId, region: "ng-abuja" } },
      { path: "subscriptions/cancel", body: { subscriptionId: subscription.id } },
      { path: "subscriptions/resume", body: { subscriptionId: subscription.id } },
      { path: "subscriptions/billing", body: { subscriptionId: subscription.id } },
      { path: "subscriptions/refund", body: { subscriptionId: subscription.id } },
    ];
  }

  it("answers 401 to every endpoint without a customer session", async () => {
    for (const { path, body } of [{ path: "subscriptions", body: {} }, ...bolasIds()]) {
      const response = await accountRequest(app, path, body);
      expect(response.status, path).toBe(401);
      expect(await response.json()).toMatchObject({ error: "Unauthorized" });
    }
  });

  it("answers 401 to every endpoint for a staff session, whatever its role, and changes nothing", async () => {
    const before = await listOf(buyers.bola.cookie);
    for (const email of [STAFF_EMAIL, OTHER_STAFF_EMAIL]) {
      const staff = await createAccount(app, email);
      for (const { path, body } of [{ path: "subscriptions", body: {} }, ...bolasIds()]) {
        const response = await accountRequest(app, path, body, staff.cookie);
        expect(response.status, `${path} as ${email}`).toBe(401);
      }
    }
    expect(await listOf(buyers.bola.cookie)).toEqual(before);
  });

  it("answers 404 for another customer's subscription or device, and changes nothing", async () => {
    const before = await listOf(buyers.bola.cookie);
    for (const { path, body } of bolasIds()) {
      const response = await accountRequest(app, path, body, buyers.ada.cookie);
      expect(response.status, path).toBe(404);
      const unknown = await accountRequest(
        app,
        path,
        "subscriptionId" in body ? { subscriptionId: UNKNOWN_ID } : { ...body, deviceId: UNKNOWN_ID },
        buyers.ada.cookie,
      );
      expect(unknown.status, path).toBe(404);
      expect(await unknown.json()).toEqual(await response.json());
    }
    expect(await listOf(buyers.bola.cookie)).toEqual(before);
    expect(await downloadStatus(before[0]!.devices[0]!.downloadUrl)).toBe(200);
  });

  it("answers 400 to malformed ids and bodies, never 500", async () => {
    const { cookie } = buyers.ada;
    expect((await accountRequest(app, "devices/revoke", { deviceId: "1 or 1=1" }, cookie)).status).toBe(400);
    expect((await accountRequest(app, "devices/add", {}, cookie)).status).toBe(400);
    expect((await accountRequest(app, "subscriptions", { extra: 1 }, cookie)).status).toBe(400);
    const get = await app.request("/api/account/subscriptions", { headers: { cookie } });
    expect(get.status).toBe(405);
  });

  it("lists only the customer's own subscriptions with plan, status, price, expiry and device 1", async () => {
    const list = await listOf(buyers.ada.cookie);
    expect(list).toHaveLength(1);
    const [subscription] = list;
    const [row] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, subscription!.id));
    expect(row!.customerEmail).toBe("ada@example.com");
    expect(subscription).toMatchObject({
      planType: "pro_monthly",
      planName: "Pro Monthly",
      status: "active",
      deviceLimit: 3,
      usable: true,
      expiresAt: row!.expiresAt.toISOString(),
    });
    expect(subscription!.price).toMatch(/^\$/);
    expect(subscription!.devices).toEqual([
      expect.objectContaining({ slot: 1, name: "Device 1", lastHandshakeAt: null, activatedAt: null }),
    ]);
    expect(subscription!.devices[0]!.server).toMatchObject({ name: expect.any(String) });
  });

  it("adds devices up to the plan's limit, then answers Device limit reached", async () => {
    await buy(app, "pro-monthly", "carol@example.com");
    const cookie = await signedInCustomer(app, "carol@example.com");
    const [subscription] = await listOf(cookie);
    for (const slot of [2, 3]) {
      const added = await accountRequest(app, "devices/add", { subscriptionId: subscription!.id }, cookie);
      expect(added.status).toBe(200);
      expect(await added.json()).toMatchObject({ slot });
    }
    const refused = await accountRequest(app, "devices/add", { subscriptionId: subscription!.id }, cookie);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "Device limit reached" });
    expect((await listOf(cookie))[0]!.devices.map((device) => device.name)).toEqual([
      "Device 1",
      "Device 2",
      "Device 3",
    ]);
  });

  it("renames a device, trimming the name and refusing an empty one", async () => {
    const { cookie, subscription } = buyers.ada;
    const deviceId = subscription.devices[0]!.id;
    const renamed = await accountRequest(app, "devices/rename", { deviceId, name: "  Ada's phone " }, cookie);
    expect(renamed.status).toBe(200);
    expect((await listOf(cookie))[0]!.devices[0]!.name).toBe("Ada's phone");
    expect((await accountRequest(app, "devices/rename", { deviceId, name: "  " }, cookie)).status).toBe(400);
  });

  it("revokes a device: its link answers 410, its peer leaves the node, its slot is free again", async () => {
    await buy(app, "pro-monthly", "dayo@example.com");
    const cookie = await signedInCustomer(app, "dayo@example.com");
    const [subscription] = await listOf(cookie);
    const device = subscription!.devices[0]!;
    const publicKey = await publicKeyOf(device.id);
    const { server, keys } = await peerKeys();
    expect(keys).toContain(publicKey);
    const version = await currentPeerVersion(app.services.db, server.id);

    expect((await accountRequest(app, "devices/revoke", { deviceId: device.id }, cookie)).status).toBe(200);
    expect(await downloadStatus(device.downloadUrl)).toBe(410);
    expect((await peerKeys()).keys).not.toContain(publicKey);
    expect(await peerChangesSince(app.services.db, server.id, String(version))).toMatchObject({
      state: "changed",
      publicKeys: [publicKey],
    });
    expect((await listOf(cookie))[0]!.devices).toEqual([]);
    // Revoked once is gone: a second revoke finds no such device.
    expect((await accountRequest(app, "devices/revoke", { deviceId: device.id }, cookie)).status).toBe(404);

    const added = await accountRequest(app, "devices/add", { subscriptionId: subscription!.id }, cookie);
    expect(await added.json()).toMatchObject({ slot: 1 });
  });

  it("gives a device new keys: same slot and address, the old key leaves the node and the new one enters", async () => {
    await buy(app, "pro-monthly", "emeka@example.com");
    const cookie = await signedInCustomer(app, "emeka@example.com");
    const device = (await listOf(cookie))[0]!.devices[0]!;
    const before = await deviceRow(app.services.db, device.id);
    const { server } = await peerKeys();
    const version = await currentPeerVersion(app.services.db, server.id);

    const response = await accountRequest(app, "devices/new-keys", { deviceId: device.id }, cookie);
    expect(response.status).toBe(200);
    const { downloadUrl } = (await response.json()) as { downloadUrl: string };
    const after = await deviceRow(app.services.db, device.id);
    expect(after).toMatchObject({ slot: before.slot, ipv4: before.ipv4, ipv6: before.ipv6 });
    expect(after.publicKey).not.toBe(before.publicKey);
    expect(after.presharedKeySealed).not.toBe(before.presharedKeySealed);

    const { keys } = await peerKeys();
    expect(keys).not.toContain(before.publicKey);
    expect(keys).toContain(after.publicKey);
    const changes = await peerChangesSince(app.services.db, server.id, String(version));
    expect(changes.state === "changed" && [...changes.publicKeys].sort()).toEqual(
      [before.publicKey, after.publicKey].sort(),
    );
    // The old link no longer opens anything; the new one serves the new config.
    expect(await downloadStatus(device.downloadUrl)).toBe(404);
    const config = await (await app.request(new URL(downloadUrl).pathname)).text();
    expect(config).toContain(`Address = ${before.ipv4}/32`);
    expect(config).not.toContain(app.services.sealer.unseal(before.privateKeySealed));
    expect(config).toContain(app.services.sealer.unseal(after.privateKeySealed));
  });

  it("refuses to add, re-key or move devices of an ended subscription, and lists it as expired", async () => {
    await buy(app, "unlock", "ended@example.com");
    const cookie = await signedInCustomer(app, "ended@example.com");
    const [subscription] = await listOf(cookie);
    const deviceId = subscription!.devices[0]!.id;
    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(subscriptions.id, subscription!.id));
    const [ended] = await listOf(cookie);
    expect(ended).toMatchObject({ status: "expired", usable: false, devices: [] });
    const rekey = await accountRequest(app, "devices/new-keys", { deviceId }, cookie);
    expect(rekey.status).toBe(409);
    const move = await accountRequest(app, "devices/move", { deviceId, region: "ng-abuja" }, cookie);
    expect(move.status).toBe(409);
    expect(await move.json()).toMatchObject({ error: "Subscription ended" });
    const add = await accountRequest(app, "devices/add", { subscriptionId: subscription!.id }, cookie);
    expect(add.status).toBe(409);
  });
});

describe.each(databaseKinds)("the customer session as proof on the success page, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("lets the signed-in buyer add a device from another browser, and no other customer", async () => {
    const sessionId = await buy(app, "pro-monthly", "owner@example.com");
    await buy(app, "basic-monthly", "someone-else@example.com");
    const stranger = await signedInCustomer(app, "someone-else@example.com");
    const refused = await app.request("/api/verify-payment", {
      json: { sessionId, newDevice: true },
      headers: { cookie: stranger },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "Paying browser required" });

    const owner = await signedInCustomer(app, "owner@example.com");
    const added = await app.request("/api/verify-payment", {
      json: { sessionId, newDevice: true },
      headers: { cookie: owner },
    });
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({ success: true, configSlot: 2 });
  });
});
