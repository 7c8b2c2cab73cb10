// The data a device moved this period (decision 073): from the transfer counters the node agent
// reports through POST /api/nodes/status to the figure its owner sees on /account.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, subscriptions, vpnServers, type Device } from "#server/db/schema/index.ts";
import { queryRows } from "#server/db/client.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { replaceDeviceKeys } from "#server/domain/vpn/keys.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { currentPeriodStart } from "#server/domain/vpn/transfer.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestSubscription, addTestVpnServer, deviceRow } from "../../support/vpn.ts";

describe.each(databaseKinds)("data transferred this period, on %s", (kind) => {
  let app: TestApp;
  const cookies: Record<"ada" | "bola", string> = { ada: "", bola: "" };
  let device: Device;

  async function listOf(cookie: string): Promise<AccountSubscription[]> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    return ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
  }

  async function adasTransfer() {
    const [subscription] = await listOf(cookies.ada);
    return subscription!.devices.find((each) => each.id === device.id)!.transfer;
  }

  /** What the node agent of `serverId` reports: these raw counters for the device's current key. */
  async function report(serverId: string, peers: Array<Record<string, unknown>>) {
    const [server] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, serverId));
    const { nodeToken } = (await rotateNodeToken(app.services.db, server!.name))!;
    return app.request("/api/nodes/status", {
      json: { publicKey: server!.publicKey, peers },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
  }

  async function reportCounters(rxBytes: number, txBytes: number, serverId?: string) {
    const current = await deviceRow(app.services.db, device.id);
    const response = await report(serverId ?? current.vpnServerId!, [
      {
        publicKey: current.publicKey,
        latestHandshake: Math.floor(Date.now() / 1000) - 5,
        rxBytes,
        txBytes,
      },
    ]);
    expect(response.status).toBe(200);
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    for (const name of ["ada", "bola"] as const) {
      await buy(app, "pro-monthly", `${name}@example.com`);
      cookies[name] = await signedInCustomer(app, `${name}@example.com`);
    }
    const [subscription] = await listOf(cookies.ada);
    device = await deviceRow(app.services.db, subscription!.devices[0]!.id);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("shows no figure until the node reports the device's transfer, nor after a handshake alone", async () => {
    expect(await adasTransfer()).toBeNull();
    const response = await report(device.vpnServerId!, [
      { publicKey: device.publicKey, latestHandshake: Math.floor(Date.now() / 1000) - 5 },
    ]);
    expect(response.status).toBe(200);
    expect(await adasTransfer()).toBeNull();
  });

  it("adds what each report counted since the last, and counts a counter that went down from zero", async () => {
    await reportCounters(1_000, 5_000);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 5_000, uploadedBytes: 1_000 });
    await reportCounters(1_500, 8_000);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 8_000, uploadedBytes: 1_500 });
    // The interface (or the agent) restarted: its counters began again at zero.
    await reportCounters(200, 300);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 8_300, uploadedBytes: 1_700 });
    // The same report again (the agent retried) adds nothing.
    await reportCounters(200, 300);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 8_300, uploadedBytes: 1_700 });
  });

  it("counts a new key's counters whole, even when they exceed the old key's last ones", async () => {
    await replaceDeviceKeys(app.services.db, app.services.sealer, device.id);
    await reportCounters(2_000, 9_000);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 17_300, uploadedBytes: 3_700 });
  });

  it("counts counters read on another server whole once the device moved there", async () => {
    const other = await addTestVpnServer(app.services.db, { name: "ng-abuja-transfer", octet: 91 });
    await app.services.db.update(devices).set({ vpnServerId: other.id }).where(eq(devices.id, device.id));
    // The old server's node still counting the peer it has not removed yet changes nothing.
    await reportCounters(50_000, 50_000, device.vpnServerId!);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 17_300, uploadedBytes: 3_700 });
    await reportCounters(3_000, 10_000);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 27_300, uploadedBytes: 6_700 });
  });

  it("starts again when the next period begins: zero until a report, then only what came after", async () => {
    const [row] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, device.subscriptionId));
    // A renewal (Stripe's invoice.paid) moves the end of the paid period one month on.
    const renewedUntil = new Date(row!.expiresAt);
    renewedUntil.setUTCMonth(renewedUntil.getUTCMonth() + 1);
    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: renewedUntil })
      .where(eq(subscriptions.id, row!.id));
    expect(await adasTransfer()).toEqual({ downloadedBytes: 0, uploadedBytes: 0 });
    await reportCounters(3_400, 10_600);
    expect(await adasTransfer()).toEqual({ downloadedBytes: 600, uploadedBytes: 400 });
  });

  it("refuses malformed counters with 400 and changes nothing", async () => {
    const before = await deviceRow(app.services.db, device.id);
    const handshake = Math.floor(Date.now() / 1000);
    for (const counters of [
      { rxBytes: -1, txBytes: 5 },
      { rxBytes: 1.5, txBytes: 5 },
      { rxBytes: "12", txBytes: 5 },
      { rxBytes: 2 ** 53, txBytes: 5 },
      { rxBytes: 5 },
      { txBytes: 5 },
    ]) {
      const response = await report(before.vpnServerId!, [
        { publicKey: before.publicKey, latestHandshake: handshake, ...counters },
      ]);
      expect(response.status, JSON.stringify(counters)).toBe(400);
      expect(await response.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    expect(await deviceRow(app.services.db, device.id)).toEqual(before);
  });

  it("shows the figure to the device's owner only", async () => {
    const bolas = JSON.stringify(await listOf(cookies.bola));
    expect(bolas).not.toContain(device.id);
    expect(JSON.parse(bolas)[0].devices[0].transfer).toBeNull();
    expect((await accountRequest(app, "subscriptions", {})).status).toBe(401);
    const page = await app.request("/account", { headers: { cookie: cookies.ada } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("1 kB this period");
    expect(html).toContain('title="0.6 kB downloaded, 0.4 kB uploaded"');
    const bolasPage = await (await app.request("/account", { headers: { cookie: cookies.bola } })).text();
    expect(bolasPage).not.toContain("this period");
  });

  it("dates each plan's current period: a recurring plan's last month or year, a pass since it began", async () => {
    const at = (text: string) => new Date(text);
    const cases = [
      // Fulfilment's first 30 days reach back before the purchase: the period began with it.
      {
        planType: "pro_monthly",
        createdAt: at("2026-03-01T10:00:00Z"),
        expiresAt: at("2026-03-31T10:00:00Z"),
        start: "2026-03-01T10:00:00.000Z",
      },
      {
        planType: "basic",
        createdAt: at("2026-01-31T10:00:00Z"),
        expiresAt: at("2026-03-31T10:00:00Z"),
        start: "2026-02-28T10:00:00.000Z",
      },
      {
        planType: "pro_yearly",
        createdAt: at("2025-01-10T00:00:00Z"),
        expiresAt: at("2027-01-10T00:00:00Z"),
        start: "2026-01-10T00:00:00.000Z",
      },
      {
        planType: "unlock",
        createdAt: at("2026-05-01T08:00:00Z"),
        expiresAt: at("2026-05-08T08:00:00Z"),
        start: "2026-05-01T08:00:00.000Z",
      },
    ] as const;
    for (const { start, ...values } of cases) {
      const subscription = await addTestSubscription(app.services.db, { ...values, planId: values.planType });
      const [row] = await queryRows<{ start: string | Date }>(
        app.services.db,
        sql`select ${currentPeriodStart(subscriptions)} as start from ${subscriptions} where ${subscriptions.id} = ${subscription.id}`,
      );
      expect(new Date(row!.start).toISOString(), values.planType).toBe(start);
    }
  });
});
