// "Add another device" on /payment-success as a browser without JavaScript sends it: a form post to
// the page, under the rules of verify-payment's `newDevice` (decision 128, docs/product.md §4.6).
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { readFlash } from "#server/http/flash.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { signedInCustomer } from "../../support/account.ts";
import { payWith, startCheckout } from "../../support/purchase.ts";

describe.each(databaseKinds)("Add another device on the success page, without JavaScript, on %s", (kind) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A paid Pro Monthly order: its session and the paying browser's cookie. */
  async function order(email: string) {
    const { sessionId, buyerCookie } = await startCheckout(app, "pro-monthly", email);
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    // The success page's first visit issues slot 1.
    const page = await app.request(`/payment-success?session_id=${sessionId}`, {
      headers: { cookie: buyerCookie },
    });
    expect(page.status).toBe(200);
    return { sessionId, buyerCookie };
  }

  function post(sessionId: string | null, fields: Record<string, string>, cookie = "") {
    return app.request(sessionId === null ? "/payment-success" : `/payment-success?session_id=${sessionId}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: app.config.PUBLIC_URL,
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async function liveSlots(email: string): Promise<number[]> {
    const rows = await app.services.db
      .select({ slot: devices.slot })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(subscriptions.customerEmail, email), isNull(devices.revokedAt)));
    return rows.map((row) => row.slot).sort();
  }

  /** A refusal: the page again with its status, the reason in the alert under the button. */
  async function expectRefused(response: Response, status: number, message: RegExp) {
    expect(response.status).toBe(status);
    expect(response.headers.get("location")).toBeNull();
    const html = (await response.text()).replaceAll("&#x27;", "'");
    const alert = /data-testid="add-device-error"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";
    expect(alert).toMatch(message);
  }

  it("adds the next slot for the browser that paid and shows the page again, until the plan is full", async () => {
    const email = "success-form@example.com";
    const { sessionId, buyerCookie } = await order(email);
    for (const slot of [2, 3]) {
      const added = await post(sessionId, { intent: "add-device" }, buyerCookie);
      expect(added.status).toBe(302);
      expect(added.headers.get("location")).toBe(`/payment-success?session_id=${sessionId}`);
      expect(readFlash(app.services, added.headers.get("set-cookie"))).toMatchObject({
        type: "success",
        title: "Device Added",
        description: `The config for device ${slot} is ready.`,
      });
    }
    expect(await liveSlots(email)).toEqual([1, 2, 3]);
    // The page the redirect leads to lists the new configs.
    const page = await (
      await app.request(`/payment-success?session_id=${sessionId}`, { headers: { cookie: buyerCookie } })
    ).text();
    expect(page).toContain('data-testid="config-3"');

    const full = await post(sessionId, { intent: "add-device" }, buyerCookie);
    await expectRefused(full, 409, /devices/i);
    expect(await liveSlots(email)).toEqual([1, 2, 3]);
  });

  it("refuses a browser that did not pay, and another customer, changing nothing; the owner signed in may add", async () => {
    const email = "success-form-owner@example.com";
    const { sessionId } = await order(email);
    await expectRefused(await post(sessionId, { intent: "add-device" }), 403, /browser that paid/);
    await order("someone-else@example.com");
    const stranger = await signedInCustomer(app, "someone-else@example.com");
    await expectRefused(await post(sessionId, { intent: "add-device" }, stranger), 403, /browser that paid/);
    expect(await liveSlots(email)).toEqual([1]);

    const owner = await signedInCustomer(app, email);
    const added = await post(sessionId, { intent: "add-device" }, owner);
    expect(added.status).toBe(302);
    expect(await liveSlots(email)).toEqual([1, 2]);
  });

  it("answers bad input with a 4xx page, never a 500, and changes nothing", async () => {
    const email = "success-form-bad@example.com";
    const { sessionId, buyerCookie } = await order(email);
    await expectRefused(await post(sessionId, { intent: "drop-everything" }, buyerCookie), 400, /form/);
    await expectRefused(await post(sessionId, {}, buyerCookie), 400, /form/);
    // No order to show: the page says the session is invalid, with the refusal's status.
    expect((await post(null, { intent: "add-device" }, buyerCookie)).status).toBe(400);
    expect((await post("x".repeat(300), { intent: "add-device" }, buyerCookie)).status).toBe(400);
    const unknown = await post("cs_test_unknown0000000000", { intent: "add-device" }, buyerCookie);
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.status).toBeLessThan(500);
    const huge = await post(sessionId, { intent: "add-device", pad: "x".repeat(100_000) }, buyerCookie);
    expect(huge.status).toBe(413);
    expect(await liveSlots(email)).toEqual([1]);
  });
});
