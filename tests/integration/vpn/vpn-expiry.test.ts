// Subscriptions that end lose their devices: expiry, cancellation at period end, refunds.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptions } from "#server/db/schema/index.ts";
import { expireDue } from "#server/domain/vpn/lifecycle.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { addTestSubscription, captureTransport, deviceRow, issueTestDevice } from "../../support/vpn.ts";

let app: TestApp;
const mail = captureTransport();

beforeAll(async () => {
  app = await createTestApp({ transport: mail });
});
afterAll(async () => {
  await app?.close();
});

describe("subscription expiry", () => {
  it("ends lapsed subscriptions, revokes their devices and those of refunded ones, and leaves the rest", async () => {
    const now = new Date();
    const lapsed = await addTestSubscription(app.services.db, {
      expiresAt: new Date(now.getTime() - 60_000),
    });
    const cancelling = await addTestSubscription(app.services.db, {
      status: "past_due",
      cancelAtPeriodEnd: true,
      expiresAt: new Date(now.getTime() - 60_000),
    });
    const current = await addTestSubscription(app.services.db);
    const lapsedDevice = await issueTestDevice(app.services, { ...lapsed, expiresAt: now });
    const cancellingDevice = await issueTestDevice(app.services, cancelling);
    const currentDevice = await issueTestDevice(app.services, current);
    const refunded = await addTestSubscription(app.services.db);
    const refundedDevice = await issueTestDevice(app.services, refunded);
    await app.services.db
      .update(subscriptions)
      .set({ status: "refunded" })
      .where(eq(subscriptions.id, refunded.id));

    const result = await expireDue(app.services, now);
    expect(result.ended).toBeGreaterThanOrEqual(2);
    expect(result.revokedDevices).toBeGreaterThanOrEqual(3);

    const status = async (id: string) =>
      (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!.status;
    expect(await status(lapsed.id)).toBe("expired");
    expect(await status(cancelling.id)).toBe("canceled");
    expect(await status(current.id)).toBe("active");
    expect(await status(refunded.id)).toBe("refunded");
    for (const issued of [lapsedDevice, cancellingDevice, refundedDevice]) {
      expect((await deviceRow(app.services.db, issued.device.id)).revokedAt).not.toBeNull();
      expect((await app.request(`/api/configs/${issued.downloadToken}`)).status).toBe(410);
    }
    expect((await deviceRow(app.services.db, currentDevice.device.id)).revokedAt).toBeNull();
    expect(await expireDue(app.services, now)).toEqual({ ended: 0, revokedDevices: 0 });
  });
});
