// What must hold before a checkout starts: a VPN server that can take a device (otherwise
// /pricing and every purchase step say orders are paused, from the server's render, and no
// checkout row is written), and the buyer's e-mail (in either checkout).
import crypto from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions, outboxMessages, vpnServers } from "#server/db/schema/index.ts";
import { SALES_STATE_RECHECK_MS, salesStatePageSource } from "#server/http/static-pages.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { rawGet } from "../../support/http.ts";
import { servePageCache } from "../../support/page-cache.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";
import { createStripeTestApp, type StripeStandIn } from "../../support/stripe-stand-in.ts";

const PAUSED = "Orders are paused";
const PAUSED_DETAIL =
  "We cannot set up new connections right now, so we are not taking orders and nobody is charged.";
const PURCHASE_PAGES = ["/pricing", "/get-started", "/get-started/details", "/get-started/payment"];

const visibleText = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe.each(databaseKinds)("before a checkout starts, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  const page = async (path: string) => {
    const response = await app.request(path);
    expect(response.status, path).toBe(200);
    return visibleText(await response.text());
  };
  const sessionCount = async () => (await app.services.db.select().from(checkoutSessions)).length;
  const pauseSales = () => app.services.db.update(vpnServers).set({ status: "draining" });
  const resumeSales = () => app.services.db.update(vpnServers).set({ status: "active" });

  it("says orders are paused on /pricing and every purchase step, without script, and starts no checkout", async () => {
    await pauseSales();
    try {
      for (const path of PURCHASE_PAGES) {
        const text = await page(path);
        expect(text, path).toContain(PAUSED);
        expect(text, path).toContain(PAUSED_DETAIL);
        // Nothing invites the buyer on: no step's button, no plan to pick, no form to fill.
        for (const invitation of [
          "Continue to Details",
          "Continue to Payment",
          "Complete Payment",
          "Select Plan",
          "Your config arrives the moment you pay",
        ])
          expect(text, `${path}: ${invitation}`).not.toContain(invitation);
      }
      // The plans stay on show, each with a button that says so instead of Get Started.
      const pricing = await (await app.request("/pricing")).text();
      expect(pricing).not.toContain("data-select-plan");
      expect(visibleText(pricing).match(/Orders paused/g)).toHaveLength(4);
      const before = await sessionCount();
      const refused = await app.request("/api/create-checkout", {
        json: { planId: "unlock", customerEmail: "buyer@example.com" },
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: "Service unavailable" });
      expect(await sessionCount()).toBe(before);
    } finally {
      await resumeSales();
    }
    for (const path of PURCHASE_PAGES) expect(await page(path), path).not.toContain(PAUSED);
    expect(await page("/get-started")).toContain("Continue to Details");
    expect(await (await app.request("/pricing")).text()).toContain('data-select-plan="unlock"');
  });

  it("keeps /pricing in the page cache per sales state, read again within seconds of a change", async () => {
    let clock = Date.now();
    const cached = await servePageCache({
      sources: [salesStatePageSource(["/pricing"], app.services.db)],
      handle: (request) => app.request(new URL(request.url).pathname),
      now: () => clock,
    });
    const get = async () => {
      const answer = await rawGet(`${cached.url}/pricing`, { "accept-encoding": "identity" });
      expect(answer.status).toBe(200);
      return { cache: answer.headers["x-page-cache"], paused: answer.body.toString().includes(PAUSED) };
    };
    try {
      expect(await get()).toEqual({ cache: "miss", paused: false });
      expect(await get()).toEqual({ cache: "hit", paused: false });
      await pauseSales();
      // Kept for at most SALES_STATE_RECHECK_MS: then the state is read again and the page follows it.
      expect(await get()).toEqual({ cache: "hit", paused: false });
      clock += SALES_STATE_RECHECK_MS;
      expect(await get()).toEqual({ cache: "miss", paused: true });
      expect(await get()).toEqual({ cache: "hit", paused: true });
      await resumeSales();
      clock += SALES_STATE_RECHECK_MS;
      expect(await get()).toEqual({ cache: "miss", paused: false });
      expect(SALES_STATE_RECHECK_MS).toBeLessThanOrEqual(5_000);
    } finally {
      await resumeSales();
      await cached.close();
    }
  });

  it("starts no built-in checkout without the buyer's e-mail, and records nothing", async () => {
    const before = await sessionCount();
    for (const body of [
      { planId: "unlock" },
      { planId: "unlock", customerEmail: null },
      { planId: "unlock", customerEmail: "" },
      { planId: "unlock", customerEmail: "   " },
    ]) {
      const response = await app.request("/api/create-checkout", { json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toEqual({
        error: "Invalid request",
        message: expect.stringContaining("customerEmail is required"),
      });
    }
    expect(await sessionCount()).toBe(before);
  });

  it("tells the success page the config is e-mailed only when the order has an address it was queued to", async () => {
    const configEmails = async (to?: string) =>
      (
        await app.services.db
          .select({ value: count() })
          .from(outboxMessages)
          .where(
            and(eq(outboxMessages.kind, "vpn-config"), to ? eq(outboxMessages.toAddress, to) : undefined),
          )
      )[0]!.value;
    const { sessionId } = await startCheckout(app, "unlock", "mailed@example.com");
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    const mailed = await verify(app, { sessionId });
    expect(await mailed.json()).toMatchObject({ success: true, configSlot: 1, configEmailed: true });
    expect(await configEmails("mailed@example.com")).toBe(1);

    // An order paid before checkouts required an e-mail: its config is on the page only.
    const before = await configEmails();
    const addressless = `cs_test_${crypto.randomBytes(12).toString("hex")}`;
    await app.services.db.insert(checkoutSessions).values({
      id: addressless,
      provider: "test",
      planId: "unlock",
      amountCents: 999,
      status: "paid",
      paidAt: new Date(),
    });
    const unmailed = await verify(app, { sessionId: addressless });
    expect(await unmailed.json()).toMatchObject({ success: true, configSlot: 1, configEmailed: false });
    expect(await configEmails()).toBe(before);
  });
});

describe.each(databaseKinds)("the Stripe checkout without the buyer's e-mail, on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  it("is refused before Stripe is asked, and records nothing", async () => {
    for (const body of [{ planId: "pro-monthly" }, { planId: "pro-monthly", customerEmail: null }]) {
      const response = await app.request("/api/create-checkout", { json: body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "Invalid request",
        message: expect.stringContaining("customerEmail is required"),
      });
    }
    expect(standIn.creates).toHaveLength(0);
    expect(await app.services.db.select().from(checkoutSessions)).toHaveLength(0);
    // With it, the same call starts one.
    const started = await app.request("/api/create-checkout", {
      json: { planId: "pro-monthly", customerEmail: "buyer@example.com" },
    });
    expect(started.status).toBe(200);
    expect(standIn.creates).toHaveLength(1);
  });
});
