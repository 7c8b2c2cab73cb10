// The staff console's subscription page and its actions (issue 15, decision 077), on the built-in
// checkout: each action's effect, its audit entry, and the refusals that change nothing.
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  devices,
  outboxMessages,
  staffAuditLog,
  subscriptionEvents,
  subscriptions,
  type Device,
} from "#server/db/schema/index.ts";
import { reactivateSubscription } from "#server/domain/billing/reactivation.ts";
import { DomainError } from "#server/domain/errors.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { buy } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const DAY_MS = 86_400_000;

describe.each(databaseKinds)("staff subscription page and actions on %s", (kind) => {
  let app: TestApp;
  let cookie: string;
  let buyers = 0;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  /** A fresh pro-monthly plan (3 devices), with device 1 issued, for a buyer of its own. */
  async function bought(planId = "pro-monthly") {
    const email = `staff-actions-${++buyers}@example.com`;
    const sessionId = await buy(app, planId, email);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    const [device] = await app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    return { subscription: subscription!, device: device!, email };
  }

  const admin = (path: string, body: unknown) =>
    app.request(`/api/admin/${path}`, { json: body, headers: { cookie } });
  const page = (id: string) => app.request(`/admin/subscriptions/${id}`, { headers: { cookie } });
  const reread = async (id: string) =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;
  const deviceRows = (subscriptionId: string) =>
    app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscriptionId))
      .orderBy(asc(devices.createdAt));
  const audit = (targetId: string) =>
    app.services.db.select().from(staffAuditLog).where(eq(staffAuditLog.targetId, targetId));
  const download = async (device: Device) => (await app.request(downloadUrl(app.services, device))).status;

  async function everything(subscriptionId: string) {
    return {
      subscription: await reread(subscriptionId),
      devices: await deviceRows(subscriptionId),
      audit: await app.services.db.select().from(staffAuditLog),
      outbox: (await app.services.db.select({ id: outboxMessages.id }).from(outboxMessages)).length,
    };
  }

  it("shows the customer, plan, status history, payment, devices and e-mails, never a message's content", async () => {
    const { subscription, device, email } = await bought();
    const response = await page(subscription.id);
    expect(response.status).toBe(200);
    const html = await response.text();
    for (const text of [
      email,
      "Pro Monthly",
      "active",
      "Status history",
      device.ipv4,
      "vpn-config",
      "receipt",
    ])
      expect(html, text).toContain(text);
    const [sealed] = await app.services.db
      .select({ sealed: outboxMessages.sealedMessage })
      .from(outboxMessages)
      .where(eq(outboxMessages.toAddress, email));
    expect(html).not.toContain(sealed!.sealed.slice(0, 40));
    expect(html).not.toContain("PrivateKey");
    expect((await page(UNKNOWN)).status).toBe(404);
    expect((await page("not-a-uuid")).status).toBe(404);
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const { subscription, device } = await bought();
    const before = await everything(subscription.id);
    const reason = "customer asked";
    const bad: Array<[string, unknown]> = [
      ["subscriptions/extend", { subscriptionId: subscription.id, reason, days: 0 }],
      ["subscriptions/extend", { subscriptionId: subscription.id, reason, days: 367 }],
      ["subscriptions/extend", { subscriptionId: subscription.id, reason, days: 1.5 }],
      ["subscriptions/extend", { subscriptionId: subscription.id, days: 3 }],
      ["subscriptions/cancel", { subscriptionId: subscription.id, reason, when: "tomorrow" }],
      ["subscriptions/cancel", { subscriptionId: subscription.id, reason: "x", when: "now" }],
      ["subscriptions/refund", { subscriptionId: "not-a-uuid", reason }],
      ["subscriptions/refund", { subscriptionId: subscription.id, reason: "  " }],
      ["subscriptions/reactivate", { subscriptionId: subscription.id, reason, extra: 1 }],
      ["devices/revoke", { deviceId: device.id }],
      ["devices/rekey", { deviceId: "1", reason }],
      ["devices/resend-config", { deviceId: device.id, reason: "y".repeat(501) }],
    ];
    for (const [path, body] of bad) {
      const response = await admin(path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const answer = (await response.json()) as { error: string; message: string };
      expect(typeof answer.message).toBe("string");
    }
    expect(await everything(subscription.id)).toEqual(before);
  });

  it("answers 404 for an unknown subscription or device", async () => {
    const reason = "checking an id";
    for (const path of ["extend", "cancel", "refund", "reactivate"]) {
      const body = { subscriptionId: UNKNOWN, reason, days: 3, when: path === "cancel" ? "now" : undefined };
      if (path !== "extend") delete (body as { days?: number }).days;
      if (path !== "cancel") delete (body as { when?: string }).when;
      expect((await admin(`subscriptions/${path}`, body)).status, path).toBe(404);
    }
    for (const path of ["revoke", "rekey", "resend-config"])
      expect((await admin(`devices/${path}`, { deviceId: UNKNOWN, reason })).status, path).toBe(404);
  });

  it("resends the config e-mail as a new outbox message and records who, what and why", async () => {
    const { subscription, device, email } = await bought();
    const configsBefore = (await queuedEmails(app, email)).filter((mail) => mail.kind === "vpn-config");
    const response = await admin("devices/resend-config", { deviceId: device.id, reason: "lost the e-mail" });
    expect(response.status).toBe(200);
    const configs = (await queuedEmails(app, email)).filter((mail) => mail.kind === "vpn-config");
    expect(configs).toHaveLength(configsBefore.length + 1);
    expect(configs.at(-1)!.text).toContain(downloadUrl(app.services, device));
    const [entry] = await audit(device.id);
    expect(entry).toMatchObject({
      staffEmail: STAFF_EMAIL,
      action: "device.resend-config",
      targetType: "device",
      reason: "lost the e-mail",
      details: { subscriptionId: subscription.id, slot: 1 },
    });
  });

  it("revokes a device: its link answers 410, the customer is told, a second revoke is 409", async () => {
    const { device, email } = await bought();
    expect(await download(device)).toBe(200);
    expect((await admin("devices/revoke", { deviceId: device.id, reason: "stolen laptop" })).status).toBe(
      200,
    );
    expect(await download(device)).toBe(410);
    expect((await queuedEmails(app, email)).map((mail) => mail.kind)).toContain("device-revoked");
    expect(await audit(device.id)).toMatchObject([{ action: "device.revoke", reason: "stolen laptop" }]);
    expect((await admin("devices/revoke", { deviceId: device.id, reason: "again" })).status).toBe(409);
    expect((await admin("devices/resend-config", { deviceId: device.id, reason: "again" })).status).toBe(409);
    expect(await audit(device.id)).toHaveLength(1);
  });

  it("gives a device new keys: the old link stops, the new config is e-mailed", async () => {
    const { subscription, device, email } = await bought();
    expect((await admin("devices/rekey", { deviceId: device.id, reason: "key leaked" })).status).toBe(200);
    const [rekeyed] = await deviceRows(subscription.id);
    expect(rekeyed!.publicKey).not.toBe(device.publicKey);
    expect(await download(device)).toBe(404);
    expect(await download(rekeyed!)).toBe(200);
    const config = (await queuedEmails(app, email)).filter((mail) => mail.kind === "vpn-config").at(-1)!;
    expect(config.text).toContain(downloadUrl(app.services, rekeyed!));
    expect(await audit(device.id)).toMatchObject([{ action: "device.rekey", reason: "key leaked" }]);
  });

  it("extends by N days, recorded in the status history and the audit log", async () => {
    const { subscription } = await bought();
    const response = await admin("subscriptions/extend", {
      subscriptionId: subscription.id,
      days: 10,
      reason: "outage compensation",
    });
    expect(response.status).toBe(200);
    const extended = await reread(subscription.id);
    expect(extended.expiresAt.getTime()).toBe(subscription.expiresAt.getTime() + 10 * DAY_MS);
    const history = await app.services.db
      .select()
      .from(subscriptionEvents)
      .where(eq(subscriptionEvents.subscriptionId, subscription.id));
    expect(history.map((event) => event.expiresAt.getTime())).toEqual([
      subscription.expiresAt.getTime(),
      extended.expiresAt.getTime(),
    ]);
    expect(await audit(subscription.id)).toMatchObject([
      { action: "subscription.extend", reason: "outage compensation", details: { days: 10 } },
    ]);
  });

  it("cancels at the period end (devices keep working), then reactivation undoes it", async () => {
    const { subscription, device } = await bought();
    const body = { subscriptionId: subscription.id, reason: "customer asked by phone" };
    expect((await admin("subscriptions/cancel", { ...body, when: "period-end" })).status).toBe(200);
    expect(await reread(subscription.id)).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
    expect(await download(device)).toBe(200);
    expect((await admin("subscriptions/cancel", { ...body, when: "period-end" })).status).toBe(409);
    expect((await admin("subscriptions/reactivate", body)).status).toBe(200);
    expect(await reread(subscription.id)).toMatchObject({ status: "active", cancelAtPeriodEnd: false });
    expect((await audit(subscription.id)).map((entry) => entry.action)).toEqual([
      "subscription.cancel",
      "subscription.reactivate",
    ]);
  });

  it("cancels now (devices revoked, links 410); reactivation restores the paid period and device 1", async () => {
    const { subscription, device, email } = await bought();
    const body = { subscriptionId: subscription.id, reason: "fraud suspicion cleared later" };
    expect((await admin("subscriptions/cancel", { ...body, when: "now" })).status).toBe(200);
    expect(await reread(subscription.id)).toMatchObject({ status: "canceled" });
    expect(await download(device)).toBe(410);
    expect((await queuedEmails(app, email)).map((mail) => mail.kind)).toContain("subscription-cancelled");
    expect((await admin("subscriptions/cancel", { ...body, when: "now" })).status).toBe(409);

    expect((await admin("subscriptions/reactivate", body)).status).toBe(200);
    const reactivated = await reread(subscription.id);
    expect(reactivated).toMatchObject({ status: "active", cancelAtPeriodEnd: false });
    expect(reactivated.expiresAt).toEqual(subscription.expiresAt);
    const live = (await deviceRows(subscription.id)).filter((row) => !row.revokedAt);
    expect(live.map((row) => row.slot)).toEqual([1]);
    expect(await download(live[0]!)).toBe(200);
    expect(await audit(subscription.id)).toMatchObject([
      { action: "subscription.cancel", details: { when: "now", revokedDevices: 1 } },
      { action: "subscription.reactivate", details: { reissuedDeviceId: live[0]!.id } },
    ]);
  });

  it("will not reactivate once the paid period has ended", async () => {
    const { subscription } = await bought();
    const body = { subscriptionId: subscription.id, reason: "customer asked" };
    expect((await admin("subscriptions/cancel", { ...body, when: "now" })).status).toBe(200);
    const staff = {
      id: "staff-id",
      email: STAFF_EMAIL,
      name: "Admin",
      twoFactorEnabled: false,
      role: "admin" as const,
    };
    const later = new Date(subscription.expiresAt.getTime() + 1000);
    const refused = await reactivateSubscription(app.services, staff, body, later).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).kind).toBe("conflict");
    expect((await reread(subscription.id)).status).toBe("canceled");
  });

  it("refunds: the plan is refunded, its devices revoked; a second refund and reactivation are 409", async () => {
    const { subscription, device } = await bought();
    const body = { subscriptionId: subscription.id, reason: "double charge" };
    expect((await admin("subscriptions/refund", body)).status).toBe(200);
    expect(await reread(subscription.id)).toMatchObject({ status: "refunded" });
    expect(await download(device)).toBe(410);
    expect((await admin("subscriptions/refund", body)).status).toBe(409);
    expect((await admin("subscriptions/reactivate", body)).status).toBe(409);
    expect((await admin("subscriptions/extend", { ...body, days: 3 })).status).toBe(409);
    expect(await audit(subscription.id)).toMatchObject([
      { action: "subscription.refund", reason: "double charge", staffEmail: STAFF_EMAIL },
    ]);
    const html = await (await page(subscription.id)).text();
    expect(html).toContain("refunded");
    expect(html).toContain("test-refund:");
    expect(html).toContain("Refund</td>");
  });
});
