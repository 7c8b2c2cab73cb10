import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions, devices, outboxMessages, subscriptions } from "#server/db/schema/index.ts";
import { readBuyerToken } from "#server/http/buyer-cookie.ts";
import { hashToken } from "#server/secrets.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";

/** The token a buyer cookie carries, read the way the app reads it. */
async function tokenOf(cookie: string): Promise<string> {
  const token = await readBuyerToken(new Request("http://localhost/", { headers: { cookie } }));
  if (!token) throw new Error(`not a well-formed buyer cookie: ${cookie}`);
  return token;
}

describe.each(databaseKinds)("adding a device needs the browser that paid, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A paid Pro session (three device slots) and the cookie of the browser that paid. */
  async function paidProSession() {
    const checkout = await startCheckout(app, "pro-monthly", "pro-buyer@example.com");
    expect((await payWith(app, checkout.sessionId, "4242 4242 4242 4242")).status).toBe(302);
    return checkout;
  }

  async function deliveries(sessionId: string) {
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    const [issued] = await app.services.db
      .select({ value: count() })
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    const [mails] = await app.services.db.select({ value: count() }).from(outboxMessages);
    return { devices: issued!.value, mails: mails!.value };
  }

  it("gives the buyer's browser an HttpOnly, SameSite=Lax cookie when checkout starts and keeps only its hash", async () => {
    const { sessionId, buyerCookie, response } = await startCheckout(app, "basic-monthly");
    const setCookie = response.headers.get("set-cookie");
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).toMatch(/; Path=\//i);
    expect(Number(/Max-Age=(\d+)/i.exec(setCookie!)?.[1])).toBeGreaterThanOrEqual(365 * 86_400);
    expect(setCookie).not.toMatch(/; Secure/i);

    const token = await tokenOf(buyerCookie);
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(16);
    const [session] = await app.services.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sessionId));
    expect(session!.buyerTokenHash).toBe(hashToken(token));
    const stored = JSON.stringify(await app.services.db.select().from(checkoutSessions));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(buyerCookie.split("=")[1]);
    expect(app.log.text).not.toContain(token);
  });

  it("marks the buyer cookie Secure when PUBLIC_URL is https", async () => {
    const https = await createTestApp({ kind, env: { PUBLIC_URL: "https://naijalink.example" } });
    try {
      const { response } = await startCheckout(https, "unlock");
      expect(response.headers.get("set-cookie")).toMatch(/; Secure/i);
    } finally {
      await https.close();
    }
  });

  it("keeps one cookie for a browser that buys twice, and replaces a malformed one", async () => {
    const first = await startCheckout(app, "unlock");
    const second = await startCheckout(app, "basic-monthly", "buyer@example.com", first.buyerCookie);
    expect(second.buyerCookie).toBe(first.buyerCookie);
    const hashes = await app.services.db
      .select({ hash: checkoutSessions.buyerTokenHash })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.buyerTokenHash, hashToken(await tokenOf(first.buyerCookie))));
    expect(hashes).toHaveLength(2);

    const forged = await startCheckout(app, "unlock", "buyer@example.com", "naijalink_buyer=short");
    expect(forged.buyerCookie).not.toBe("naijalink_buyer=short");
    expect(await tokenOf(forged.buyerCookie)).not.toBe(await tokenOf(first.buyerCookie));
  });

  it("answers slot 1 to the success link from any browser, without the cookie", async () => {
    const { sessionId } = await paidProSession();
    const response = await verify(app, { sessionId });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, configSlot: 1 });
  });

  it("refuses a new device with 403 and adds nothing without the paying browser's cookie", async () => {
    const { sessionId } = await paidProSession();
    const other = await startCheckout(app, "pro-monthly");
    await verify(app, { sessionId });
    const before = await deliveries(sessionId);

    for (const cookie of [undefined, other.buyerCookie, "naijalink_buyer=short"]) {
      const refused = await verify(app, { sessionId, newDevice: true }, cookie);
      expect(refused.status, cookie ?? "no cookie").toBe(403);
      expect(await refused.json()).toEqual({
        success: false,
        error: "Paying browser required",
        message: expect.stringContaining("Adding a device needs the browser that paid"),
      });
    }
    expect(await deliveries(sessionId)).toEqual(before);
  });

  it("adds slot 2 for the browser that paid", async () => {
    const { sessionId, buyerCookie } = await paidProSession();
    await verify(app, { sessionId });
    const before = await deliveries(sessionId);
    const added = await verify(app, { sessionId, newDevice: true }, buyerCookie);
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({
      success: true,
      configSlot: 2,
      subscription: { activeDevices: 2 },
    });
    expect(await deliveries(sessionId)).toEqual({ devices: before.devices + 1, mails: before.mails + 1 });
  });

  it("lists every live device to the paying browser on reload, and slot 1 alone to the link", async () => {
    const { sessionId, buyerCookie } = await paidProSession();
    const added = (await (await verify(app, { sessionId, newDevice: true }, buyerCookie)).json()) as {
      downloadUrl: string;
    };

    const reload = await verify(app, { sessionId }, buyerCookie);
    expect(reload.status).toBe(200);
    const reloaded = (await reload.json()) as Record<string, unknown>;
    expect(reloaded).toMatchObject({
      success: true,
      configSlot: 1,
      subscription: { activeDevices: 2, deviceLimit: 3 },
    });
    // Each device comes with its port-443 variant (issue 22): the same config, another port.
    const onPort443 = (downloadUrl: unknown) => ({
      port: 443,
      downloadUrl: `${String(downloadUrl)}?port=443`,
    });
    expect(reloaded.devices).toEqual([
      { slot: 1, downloadUrl: reloaded.downloadUrl, alternate: onPort443(reloaded.downloadUrl) },
      { slot: 2, downloadUrl: added.downloadUrl, alternate: onPort443(added.downloadUrl) },
    ]);

    const byLink = (await (await verify(app, { sessionId })).json()) as Record<string, unknown>;
    expect(byLink.devices).toEqual([
      { slot: 1, downloadUrl: reloaded.downloadUrl, alternate: onPort443(reloaded.downloadUrl) },
    ]);
    expect(JSON.stringify(byLink)).not.toContain(added.downloadUrl);
  });

  it("lets no browser add a device to a session started before buyer cookies", async () => {
    const { sessionId, buyerCookie } = await paidProSession();
    await app.services.db
      .update(checkoutSessions)
      .set({ buyerTokenHash: null })
      .where(eq(checkoutSessions.id, sessionId));
    expect((await verify(app, { sessionId, newDevice: true }, buyerCookie)).status).toBe(403);
    expect((await verify(app, { sessionId }, buyerCookie)).status).toBe(200);
  });
});
