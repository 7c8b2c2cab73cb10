import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLANS } from "#core/plans.ts";
import {
  checkoutSessions,
  devices,
  outboxMessages,
  subscriptions,
  vpnServers,
} from "#server/db/schema/index.ts";
import { VERIFY_LIMITS } from "#server/domain/billing/verify.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";
import { addTestVpnServer } from "../../support/vpn.ts";

describe.each(databaseKinds)("the built-in checkout and verify-payment on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("answers an unknown plan with 400 and creates nothing", async () => {
    const response = await app.request("/api/create-checkout", {
      json: { planId: "free-forever", customerEmail: "buyer@example.com" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "Invalid request",
      message: expect.stringContaining("Unknown plan"),
    });
    expect(await app.services.db.select().from(checkoutSessions)).toHaveLength(0);
  });

  it("answers a malformed body with 400", async () => {
    for (const body of [{}, { planId: 5 }, { planId: "unlock", customerEmail: "not-an-email" }]) {
      const response = await app.request("/api/create-checkout", { json: body });
      expect(response.status).toBe(400);
    }
    expect((await verify(app, { session: "x" })).status).toBe(400);
    expect((await verify(app, { sessionId: "x", newDevice: "yes" })).status).toBe(400);
  });

  it("prices every plan from the server catalogue and shows it on the hosted checkout", async () => {
    for (const plan of PLANS) {
      const { url, sessionId } = await startCheckout(app, plan.id);
      expect(url).toMatch(/\/checkout\/cs_test_/);
      const [row] = await app.services.db
        .select()
        .from(checkoutSessions)
        .where(eq(checkoutSessions.id, sessionId));
      expect(row).toMatchObject({
        provider: "test",
        planId: plan.id,
        amountCents: plan.priceCents,
        status: "open",
      });
      const page = await (await app.request(`/checkout/${sessionId}`)).text();
      expect(page).toContain(plan.name);
      expect(page).toContain(`$${(plan.priceCents / 100).toFixed(2)}`);
      expect(page).toContain("buyer@example.com");
    }
  });

  it("keeps an unpaid session unverified: success false with an error", async () => {
    const { sessionId } = await startCheckout(app, "basic-monthly");
    const response = await verify(app, { sessionId });
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ success: false, error: "Payment not completed" });
    const unknown = await verify(app, { sessionId: "cs_test_forged_session_id" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ success: false, error: "Payment session not found" });
  });

  it("declines 4000 0000 0000 0002 and leaves the session open", async () => {
    const { sessionId } = await startCheckout(app, "basic-monthly");
    const response = await payWith(app, sessionId, "4000 0000 0000 0002");
    expect(response.status).toBe(402);
    expect(await response.text()).toContain("Your card was declined.");
    const [row] = await app.services.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sessionId));
    expect(row!.status).toBe("open");
  });

  it("pays with 4242, fulfils once, returns slot 1 on every repeat and queues the config e-mail", async () => {
    const { sessionId, buyerCookie } = await startCheckout(app, "pro-monthly", "pro@example.com");
    const paid = await payWith(app, sessionId, "4242 4242 4242 4242");
    expect(paid.status).toBe(302);
    expect(paid.headers.get("location")).toBe(`/payment-success?session_id=${sessionId}`);

    const first = (await (await verify(app, { sessionId })).json()) as Record<string, unknown>;
    expect(first).toMatchObject({
      success: true,
      configSlot: 1,
      subscription: { planType: "pro_monthly", deviceLimit: 3, activeDevices: 1 },
    });
    expect(first.downloadUrl).toMatch(/^http:\/\/localhost:3000\/api\/configs\/[A-Za-z0-9_-]{16,}$/);
    const again = (await (await verify(app, { sessionId })).json()) as Record<string, unknown>;
    expect(again.downloadUrl).toBe(first.downloadUrl);
    expect(again.configSlot).toBe(1);

    const conf = await (await app.request(new URL(first.downloadUrl as string).pathname)).text();
    expect(conf).toMatch(
      /\[Interface\][\s\S]*PrivateKey = [A-Za-z0-9+/]{43}=[\s\S]*\[Peer\][\s\S]*Endpoint = /,
    );

    const addDevice = () => verify(app, { sessionId, newDevice: true }, buyerCookie);
    const second = (await (await addDevice()).json()) as Record<string, unknown>;
    const third = (await (await addDevice()).json()) as Record<string, unknown>;
    expect([second.configSlot, third.configSlot]).toEqual([2, 3]);
    expect(third).toMatchObject({ subscription: { activeDevices: 3 } });
    const fourth = await addDevice();
    expect(fourth.status).toBe(409);
    expect(await fourth.json()).toMatchObject({
      success: false,
      error: "Device limit reached",
      message: expect.stringContaining("3 devices"),
    });

    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    expect(subscription).toMatchObject({
      planId: "pro-monthly",
      customerEmail: "pro@example.com",
      status: "active",
    });
    const issued = await app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    expect(issued.map((device) => device.slot).sort()).toEqual([1, 2, 3]);
    const mails = await app.services.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.toAddress, "pro@example.com"));
    expect(mails.map((mail) => mail.kind).sort()).toEqual([
      "receipt",
      "vpn-config",
      "vpn-config",
      "vpn-config",
    ]);
  });

  it("starts no checkout while no VPN server can take a device: none active, or every pool full", async () => {
    const start = () =>
      app.request("/api/create-checkout", { json: { planId: "unlock", customerEmail: "buyer@example.com" } });
    await app.services.db.update(vpnServers).set({ status: "draining" });
    try {
      const refused = await start();
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: "Service unavailable" });
      // A full /29 (five devices) is no better than none.
      const tiny = await addTestVpnServer(app.services.db, { name: "ng-full-1", octet: 73, ipv4Prefix: 29 });
      await app.services.db.update(vpnServers).set({ nextAddressIndex: 7 }).where(eq(vpnServers.id, tiny.id));
      expect((await start()).status).toBe(503);
      await app.services.db.update(vpnServers).set({ nextAddressIndex: 2 }).where(eq(vpnServers.id, tiny.id));
      expect((await start()).status).toBe(200);
      await app.services.db.delete(vpnServers).where(eq(vpnServers.id, tiny.id));
    } finally {
      await app.services.db
        .update(vpnServers)
        .set({ status: "active" })
        .where(eq(vpnServers.name, "ng-lagos-dev"));
    }
  });

  it("limits verify-payment per client, answering 429 in verify-payment's shape; others holding the session id never block the buyer", async () => {
    const { sessionId: session, buyerCookie } = await startCheckout(app, "basic-monthly");
    expect((await payWith(app, session, "4242 4242 4242 4242")).status).toBe(302);
    // Someone else holding the session id asks 100 times from 100 addresses within the minute...
    for (let call = 0; call < 100; call++) {
      const response = await app.request("/api/verify-payment", {
        json: { sessionId: session },
        clientIp: `198.51.100.${call}`,
      });
      expect(response.status).toBe(200);
    }
    // ...and the buyer's own success page still answers at once.
    const buyer = await app.request("/api/verify-payment", {
      json: { sessionId: session },
      headers: { cookie: buyerCookie },
      clientIp: "192.0.2.200",
    });
    expect(buyer.status).toBe(200);
    expect(await buyer.json()).toMatchObject({ success: true, configSlot: 1 });

    const statusesOfOneClient = [];
    let last: Response | undefined;
    for (let call = 0; call <= VERIFY_LIMITS.perClient; call++) {
      last = await app.request("/api/verify-payment", {
        json: { sessionId: `cs_test_unknown_${call}_abcdefghij` },
        clientIp: "203.0.113.77",
      });
      statusesOfOneClient.push(last.status);
    }
    expect(statusesOfOneClient.slice(0, -1).every((status) => status === 404)).toBe(true);
    expect(statusesOfOneClient.at(-1)).toBe(429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last!.json()).toMatchObject({ success: false, error: "Too many requests" });
  });

  it("sends a paid session's checkout page on to the success page", async () => {
    const { sessionId } = await startCheckout(app, "unlock");
    await payWith(app, sessionId, "4242424242424242");
    const again = await app.request(`/checkout/${sessionId}`, { redirect: "manual" });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toContain(sessionId);
    expect((await app.request("/checkout/cs_test_does_not_exist_at_all")).status).toBe(404);
  });
});
