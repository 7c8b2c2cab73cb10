// Plan changes on a Stripe store, against the local stand-in (decision 104): the change is asked of
// Stripe with proration, and Stripe's `customer.subscription.updated` makes it take effect here.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, planChanges, staffAuditLog, subscriptions } from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { accountRequest, signedInCustomer } from "../../support/account.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout, verify } from "../../support/purchase.ts";
import {
  createStripeTestApp,
  deliverStripeEvent,
  STAND_IN_SECRET_KEY,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const DAY_MS = 86_400_000;

describe.each(databaseKinds)("plan changes with Stripe on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  /** A plan paid on Stripe's hosted page, confirmed by the success page; the buyer signed in. */
  async function bought(planId: string, email: string) {
    const { sessionId } = await startCheckout(app, planId, email);
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    return { subscription: subscription!, paid, cookie: await signedInCustomer(app, email) };
  }
  const reread = async (id: string) =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;
  const liveDevices = async (id: string) =>
    (await app.services.db.select().from(devices).where(eq(devices.subscriptionId, id)))
      .filter((device) => !device.revokedAt)
      .sort((a, b) => a.slot - b.slot);
  /** Stripe tells the app what its subscription now is. */
  const stripeConfirms = (stripeSubscriptionId: string) =>
    deliverStripeEvent(
      app,
      "customer.subscription.updated",
      standIn.subscriptions.get(stripeSubscriptionId)!,
    );

  it("asks Stripe for a prorated price change, and the webhook then raises the plan and device limit", async () => {
    const { subscription, paid, cookie } = await bought("basic-monthly", "stripe-upgrade@example.com");
    const stripeId = paid.subscription!;
    const quoted = await accountRequest(
      app,
      "subscriptions/plan-change/quote",
      { subscriptionId: subscription.id, planId: "pro-monthly" },
      cookie,
    );
    expect(await quoted.json()).toMatchObject({ kind: "upgrade", chargedNow: false });

    const asked = Date.now();
    const changed = await accountRequest(
      app,
      "subscriptions/plan-change",
      { subscriptionId: subscription.id, planId: "pro-monthly" },
      cookie,
    );
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      status: "pending",
      planId: "basic-monthly",
      deviceLimit: 1,
    });
    const update = standIn.subscriptionUpdates.at(-1)!;
    expect(update.id).toBe(stripeId);
    expect(update.authorization).toBe(`Bearer ${STAND_IN_SECRET_KEY}`);
    expect(Object.fromEntries(update.params)).toMatchObject({
      "items[0][id]": standIn.subscriptions.get(stripeId)!.items.data[0]!.id,
      "items[0][price_data][currency]": "usd",
      "items[0][price_data][product]": standIn.subscriptions.get(stripeId)!.items.data[0]!.price.product,
      "items[0][price_data][unit_amount]": "799",
      "items[0][price_data][recurring][interval]": "month",
      proration_behavior: "create_prorations",
      "metadata[planId]": "pro-monthly",
    });
    const prorationDate = Number(update.params.get("proration_date")) * 1000;
    expect(prorationDate).toBeGreaterThanOrEqual(Math.floor(asked / 1000) * 1000);
    expect(prorationDate).toBeLessThanOrEqual(Date.now());
    // Until Stripe confirms, nothing changed here.
    expect(await reread(subscription.id)).toMatchObject({ planId: "basic-monthly", deviceLimit: 1 });
    const adding = await accountRequest(app, "devices/add", { subscriptionId: subscription.id }, cookie);
    expect(adding.status).toBe(409);

    await stripeConfirms(stripeId);
    expect(await reread(subscription.id)).toMatchObject({
      planId: "pro-monthly",
      planType: "pro_monthly",
      deviceLimit: 3,
    });
    const [change] = await app.services.db
      .select()
      .from(planChanges)
      .where(eq(planChanges.subscriptionId, subscription.id));
    expect(change).toMatchObject({ status: "applied", kind: "upgrade", toPlanId: "pro-monthly" });
    for (const slot of [2, 3]) {
      const added = await accountRequest(app, "devices/add", { subscriptionId: subscription.id }, cookie);
      expect(await added.json()).toMatchObject({ slot });
    }
    const emails = (await queuedEmails(app, "stripe-upgrade@example.com")).filter(
      (email) => email.kind === "plan-changed",
    );
    expect(emails).toHaveLength(1);
    // A replay of the same state changes nothing more.
    await stripeConfirms(stripeId);
    expect(await liveDevices(subscription.id)).toHaveLength(3);
  });

  it("keeps the chosen devices on a downgrade, revoking the others only when Stripe confirms it", async () => {
    const { subscription, paid, cookie } = await bought("pro-monthly", "stripe-downgrade@example.com");
    for (let added = 0; added < 2; added++)
      expect(
        (await accountRequest(app, "devices/add", { subscriptionId: subscription.id }, cookie)).status,
      ).toBe(200);
    const before = await liveDevices(subscription.id);
    const kept = before[1]!;
    const changed = await accountRequest(
      app,
      "subscriptions/plan-change",
      { subscriptionId: subscription.id, planId: "basic-monthly", keepDeviceIds: [kept.id] },
      cookie,
    );
    expect(await changed.json()).toMatchObject({ status: "pending" });
    expect(standIn.subscriptionUpdates.at(-1)!.params.get("items[0][price_data][unit_amount]")).toBe("499");
    expect(await liveDevices(subscription.id)).toHaveLength(3);

    await stripeConfirms(paid.subscription!);
    expect(await reread(subscription.id)).toMatchObject({ planId: "basic-monthly", deviceLimit: 1 });
    const after = await liveDevices(subscription.id);
    expect(after.map((device) => [device.id, device.slot])).toEqual([[kept.id, 1]]);
    expect((await app.request(downloadUrl(app.services, before[0]!))).status).toBe(410);
    expect((await app.request(downloadUrl(app.services, before[2]!))).status).toBe(410);
  });

  it("moves monthly to yearly at Stripe; the new period end comes from Stripe's record", async () => {
    const { subscription, paid, cookie } = await bought("pro-monthly", "stripe-yearly@example.com");
    await accountRequest(
      app,
      "subscriptions/plan-change",
      { subscriptionId: subscription.id, planId: "pro-yearly" },
      cookie,
    );
    expect(standIn.subscriptionUpdates.at(-1)!.params.get("items[0][price_data][recurring][interval]")).toBe(
      "year",
    );
    await stripeConfirms(paid.subscription!);
    const yearly = await reread(subscription.id);
    expect(yearly).toMatchObject({ planId: "pro-yearly", deviceLimit: 3 });
    expect(yearly.expiresAt.getTime()).toBeGreaterThan(Date.now() + 360 * DAY_MS);
  });

  it("answers 502 and keeps no pending change when Stripe refuses", async () => {
    const { subscription, paid, cookie } = await bought("basic-monthly", "stripe-refused@example.com");
    standIn.subscriptions.delete(paid.subscription!);
    const changed = await accountRequest(
      app,
      "subscriptions/plan-change",
      { subscriptionId: subscription.id, planId: "pro-monthly" },
      cookie,
    );
    expect(changed.status).toBe(502);
    expect(
      await app.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, subscription.id)),
    ).toEqual([]);
  });

  it("adds 7 days to an Unlock Pass through a Stripe Checkout that returns to /account", async () => {
    const { subscription, cookie } = await bought("unlock", "stripe-pass@example.com");
    const started = await accountRequest(
      app,
      "subscriptions/pass-checkout",
      { subscriptionId: subscription.id, planId: "unlock" },
      cookie,
    );
    expect(started.status).toBe(200);
    const create = standIn.creates.at(-1)!;
    expect(create.params.get("mode")).toBe("payment");
    expect(create.params.get("success_url")).toBe(`${app.config.PUBLIC_URL}/account?plan-change=paid`);
    const sessionId = [...standIn.sessions.keys()].at(-1)!;
    const paid = standIn.markPaid(sessionId);
    await deliverStripeEvent(app, "checkout.session.completed", paid);
    const extended = await reread(subscription.id);
    expect(extended.expiresAt.getTime() - subscription.expiresAt.getTime()).toBe(7 * DAY_MS);
    const owned = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, "stripe-pass@example.com"));
    expect(owned).toHaveLength(1);
  });

  it("moves an Unlock Pass to Pro Monthly through Stripe Checkout: the pass becomes that Stripe subscription", async () => {
    const { subscription, cookie } = await bought("unlock", "stripe-pass-plan@example.com");
    const started = await accountRequest(
      app,
      "subscriptions/pass-checkout",
      { subscriptionId: subscription.id, planId: "pro-monthly" },
      cookie,
    );
    expect(started.status).toBe(200);
    expect(standIn.creates.at(-1)!.params.get("mode")).toBe("subscription");
    const paid = standIn.markPaid([...standIn.sessions.keys()].at(-1)!);
    await deliverStripeEvent(app, "checkout.session.completed", paid);
    expect(await reread(subscription.id)).toMatchObject({
      planId: "pro-monthly",
      deviceLimit: 3,
      stripeSubscriptionId: paid.subscription,
    });
    expect(await liveDevices(subscription.id)).toHaveLength(1);
    // Stripe's later events about that subscription now reach the same row.
    await deliverStripeEvent(app, "customer.subscription.updated", {
      ...standIn.subscriptions.get(paid.subscription!)!,
      cancel_at_period_end: true,
    });
    expect(await reread(subscription.id)).toMatchObject({ cancelAtPeriodEnd: true });
  });

  it("lets staff ask Stripe for the change, audited as pending until Stripe confirms it", async () => {
    const { subscription, paid } = await bought("pro-monthly", "stripe-staff-change@example.com");
    const admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    const changed = await app.request("/api/admin/subscriptions/change-plan", {
      json: { subscriptionId: subscription.id, planId: "pro-yearly", reason: "asked on the phone" },
      headers: { cookie: admin },
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ status: "pending" });
    const [entry] = await app.services.db
      .select()
      .from(staffAuditLog)
      .where(eq(staffAuditLog.targetId, subscription.id));
    expect(entry).toMatchObject({ action: "subscription.change-plan", reason: "asked on the phone" });
    expect(entry!.details).toMatchObject({ to: "pro-yearly", status: "pending" });
    await stripeConfirms(paid.subscription!);
    expect(await reread(subscription.id)).toMatchObject({ planId: "pro-yearly" });
  });
});
