// Demo and live mode (decision 060): a live store never sells through the built-in checkout and
// never issues configs on the development VPN server.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkoutSessions,
  devices,
  outboxMessages,
  subscriptions,
  vpnServers,
} from "#server/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { addTestSubscription, addTestVpnServer, issueTestDevice } from "../../support/vpn.ts";
import { signUp } from "../../support/staff.ts";

const LIVE_ENV = {
  NAIJALINK_MODE: "live",
  STRIPE_SECRET_KEY: "sk_test_naijalink_unused",
  STRIPE_WEBHOOK_SECRET: "whsec_test_naijalink_unused",
  SMTP_URL: "smtp://mail.naijalink.example:587",
  PUBLIC_URL: "https://naijalink.example",
  STAFF_ADMINS: "owner@naijalink.example",
};

/** A built-in checkout session as a demo store (or one without Stripe keys) left it, unpaid. */
async function leftoverTestSession(app: TestApp) {
  const id = `cs_test_leftover_${crypto.randomUUID().replace(/-/g, "")}`;
  await app.services.db.insert(checkoutSessions).values({
    id,
    provider: "test",
    planId: "basic-monthly",
    amountCents: 499,
    customerEmail: "a@example.com",
  });
  return id;
}

async function tryToPay(app: TestApp, sessionId: string) {
  const page = await app.request(`/checkout/${sessionId}`);
  const pay = await app.request(`/checkout/${sessionId}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123" }).toString(),
  });
  const [session] = await app.services.db
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, sessionId));
  const fulfilled = await app.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, sessionId));
  return { page: page.status, pay: pay.status, status: session!.status, fulfilled: fulfilled.length };
}

describe("live mode", () => {
  let app: TestApp;
  beforeAll(async () => {
    // No outbox worker runs here (backgroundJobs off), so the SMTP transport never connects.
    app = await createTestApp({ env: LIVE_ENV });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("answers 404 for the built-in checkout, even for a test session made before, and sells nothing through it", async () => {
    const sessionId = await leftoverTestSession(app);
    expect(await tryToPay(app, sessionId)).toEqual({ page: 404, pay: 404, status: "open", fulfilled: 0 });
  });

  it("never writes a staff sign-up's confirmation link to the log", async () => {
    const signedUp = await signUp(app, LIVE_ENV.STAFF_ADMINS);
    expect(signedUp.status).toBe(200);
    const [queued] = await app.services.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.kind, "auth.verify-email"));
    expect(queued).toBeDefined();
    expect(app.log.entries().some((entry) => entry.msg === "e-mail verification link")).toBe(false);
    expect(app.log.text).not.toMatch(/verify-email\?token=|\?confirm=/);
  });

  it("creates no development VPN server, and so starts no checkout until a real one can take a device", async () => {
    expect(await app.services.db.select().from(vpnServers)).toEqual([]);
    const sessionsBefore = (await app.services.db.select().from(checkoutSessions)).length;
    const refused = await app.request("/api/create-checkout", {
      json: { planId: "basic-monthly", customerEmail: "buyer@example.com" },
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      error: "Service unavailable",
      message: "We cannot set up new connections right now. Please try again later or contact support.",
    });
    expect(await app.services.db.select().from(checkoutSessions)).toHaveLength(sessionsBefore);
  });

  it("shows no demo banner", async () => {
    for (const path of ["/", "/get-started"]) {
      const html = await (await app.request(path)).text();
      expect(html).toContain("Get Started");
      expect(html).not.toContain("payments are simulated");
    }
  });

  it("says at start-up that it is live, with Stripe, the database and SMTP", () => {
    const started = app.log.entries().find((entry) => entry.msg === "live mode");
    expect(started).toMatchObject({ checkout: "Stripe Checkout", mail: "SMTP mail.naijalink.example:587" });
    expect(String(started!.database)).toMatch(/PGlite|PostgreSQL/);
  });
});

describe("demo mode", () => {
  it("stops the built-in checkout for good once Stripe is configured", async () => {
    const app = await createTestApp({
      env: { STRIPE_SECRET_KEY: "sk_test_naijalink_unused", STRIPE_WEBHOOK_SECRET: "whsec_test_unused" },
    });
    try {
      const sessionId = await leftoverTestSession(app);
      expect(await tryToPay(app, sessionId)).toEqual({ page: 404, pay: 404, status: "open", fulfilled: 0 });
    } finally {
      await app.close();
    }
  });

  it("never issues on the development server once a real server exists, even a full or disabled one", async () => {
    const app = await createTestApp();
    try {
      const { db } = app.services;
      const [development] = await db.select().from(vpnServers);
      expect(development).toMatchObject({ name: "ng-lagos-dev", development: true });
      const real = await addTestVpnServer(db, { name: "ng-lagos-1", octet: 74, ipv4Prefix: 29 });
      // The real server has more devices than the empty development server, and still takes them all.
      const placed = [];
      for (let index = 0; index < 5; index++)
        placed.push(await issueTestDevice(app.services, await addTestSubscription(db)));
      expect(placed.every(({ server }) => server.id === real.id)).toBe(true);
      // Full, then disabled: buyers wait (Configuration Pending), checkout stops; no dead configs.
      await expect(issueTestDevice(app.services, await addTestSubscription(db))).rejects.toThrow(
        /No active VPN server/,
      );
      await db.update(vpnServers).set({ status: "draining" }).where(eq(vpnServers.id, real.id));
      await expect(issueTestDevice(app.services, await addTestSubscription(db))).rejects.toThrow(
        /No active VPN server/,
      );
      const refused = await app.request("/api/create-checkout", {
        json: { planId: "unlock", customerEmail: "buyer@example.com" },
      });
      expect(refused.status).toBe(503);
      expect((await db.select().from(devices).where(eq(devices.vpnServerId, development!.id))).length).toBe(
        0,
      );
    } finally {
      await app.close();
    }
  });

  it("says at start-up that payments are simulated and where the database and e-mail go", async () => {
    const app = await createTestApp();
    try {
      const started = app.log.entries().find((entry) => entry.msg === "demo mode");
      expect(started).toMatchObject({ checkout: "built-in test checkout (payments are simulated)" });
      expect(String(started!.mail)).toMatch(/capture|files in|SMTP/);
      expect(await app.services.db.select().from(vpnServers)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
