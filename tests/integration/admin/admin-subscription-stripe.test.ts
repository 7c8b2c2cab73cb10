// The staff subscription actions on a Stripe store, against the local Stripe stand-in: refund,
// cancel now and extend are made at Stripe first, and Stripe's own later events change nothing more.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chargeReversals,
  devices,
  staffAuditLog,
  subscriptionEvents,
  subscriptions,
} from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
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

describe.each(databaseKinds)("staff subscription actions with Stripe on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  let cookie: string;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  /** A plan paid on Stripe's hosted page and confirmed by the success page. */
  async function bought(planId: string) {
    const { sessionId } = await startCheckout(app, planId, "stripe-staff@example.com");
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    const [device] = await app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    return { subscription: subscription!, device: device!, paid };
  }

  const admin = (path: string, body: unknown) =>
    app.request(`/api/admin/subscriptions/${path}`, { json: body, headers: { cookie } });
  const reread = async (id: string) =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;
  const history = (id: string) =>
    app.services.db.select().from(subscriptionEvents).where(eq(subscriptionEvents.subscriptionId, id));
  const audit = (id: string) =>
    app.services.db.select().from(staffAuditLog).where(eq(staffAuditLog.targetId, id));

  it("refunds a pass at Stripe once; the later charge.refunded event changes nothing more", async () => {
    const { subscription, device, paid } = await bought("unlock");
    const body = { subscriptionId: subscription.id, reason: "customer could not connect" };
    expect((await admin("refund", body)).status).toBe(200);
    const refund = standIn.refunds.at(-1)!;
    expect(refund.params.get("payment_intent")).toBe(paid.payment_intent);
    // One key per charge and amount left: a retried refund is one refund at Stripe.
    expect(refund.idempotencyKey).toMatch(new RegExp(`^staff-refund-[0-9a-f-]{36}-${paid.amount_total}$`));
    expect(refund.params.get("amount")).toBe(String(paid.amount_total));
    expect(refund.authorization).toBe(`Bearer ${STAND_IN_SECRET_KEY}`);
    expect(await reread(subscription.id)).toMatchObject({ status: "refunded" });
    expect((await app.request(downloadUrl(app.services, device))).status).toBe(410);

    const recorded = { subscription: await reread(subscription.id), history: await history(subscription.id) };
    await deliverStripeEvent(app, "charge.refunded", {
      id: `ch_${paid.payment_intent!.slice(3)}`,
      object: "charge",
      refunded: true,
      amount_refunded: paid.amount_total,
      currency: paid.currency,
      payment_intent: paid.payment_intent,
      customer: paid.customer,
    });
    expect((await reread(subscription.id)).status).toBe("refunded");
    expect(await history(subscription.id)).toEqual(recorded.history);
    const reversals = await app.services.db
      .select()
      .from(chargeReversals)
      .where(eq(chargeReversals.subscriptionId, subscription.id));
    expect(reversals).toHaveLength(1);
    expect(reversals[0]).toMatchObject({ kind: "refund", amountCents: paid.amount_total });

    const calls = standIn.refunds.length;
    expect((await admin("refund", body)).status).toBe(409);
    expect(standIn.refunds).toHaveLength(calls);
    expect(await audit(subscription.id)).toMatchObject([
      {
        action: "subscription.refund",
        reason: "customer could not connect",
        details: { provider: "stripe" },
      },
    ]);
  });

  it("still records its refund when Stripe's charge.refunded for it lands before Stripe answers", async () => {
    const { subscription, paid } = await bought("unlock");
    standIn.beforeRefundAnswer = async (refund) => {
      await deliverStripeEvent(app, "charge.refunded", {
        id: refund.charge,
        object: "charge",
        refunded: true,
        amount_refunded: refund.amount,
        currency: refund.currency,
        payment_intent: refund.payment_intent,
        customer: paid.customer,
      });
      expect((await reread(subscription.id)).status).toBe("refunded");
    };
    const body = { subscriptionId: subscription.id, reason: "webhook raced the answer" };
    try {
      expect((await admin("refund", body)).status).toBe(200);
    } finally {
      standIn.beforeRefundAnswer = undefined;
    }
    expect(await audit(subscription.id)).toMatchObject([
      { action: "subscription.refund", reason: "webhook raced the answer" },
    ]);
    expect((await admin("refund", body)).status).toBe(409);
    expect(await audit(subscription.id)).toHaveLength(1);
  });

  it("refunds a monthly plan's first invoice (its only charge) and cancels it at Stripe, so it never charges again", async () => {
    const { subscription, paid } = await bought("pro-monthly");
    expect(
      (await admin("refund", { subscriptionId: subscription.id, reason: "refund requested" })).status,
    ).toBe(200);
    expect(standIn.refunds.at(-1)!.params.get("payment_intent")).toBe(
      standIn.invoicePaymentIntentOf(paid.subscription!),
    );
    expect(standIn.subscriptionCancels.at(-1)!.id).toBe(paid.subscription);
    expect(standIn.subscriptions.get(paid.subscription!)!.status).toBe("canceled");
    await deliverStripeEvent(
      app,
      "customer.subscription.deleted",
      standIn.subscriptions.get(paid.subscription!)!,
    );
    expect((await reread(subscription.id)).status).toBe("refunded");
  });

  it("extends a monthly plan by moving Stripe's next charge with a trial, without proration", async () => {
    const { subscription, paid } = await bought("basic-monthly");
    const body = { subscriptionId: subscription.id, reason: "outage last week", days: 14 };
    expect((await admin("extend", body)).status).toBe(200);
    const until = subscription.expiresAt.getTime() + 14 * DAY_MS;
    const update = standIn.subscriptionUpdates.at(-1)!;
    expect(update.id).toBe(paid.subscription);
    expect(update.params.get("trial_end")).toBe(String(Math.floor(until / 1000)));
    expect(update.params.get("proration_behavior")).toBe("none");
    expect((await reread(subscription.id)).expiresAt.getTime()).toBe(until);
  });

  it("cancels now at Stripe; Stripe's deletion event afterwards sends nothing and changes nothing", async () => {
    const { subscription, device, paid } = await bought("pro-yearly");
    const body = { subscriptionId: subscription.id, reason: "chargeback risk", when: "now" };
    expect((await admin("cancel", body)).status).toBe(200);
    expect(standIn.subscriptionCancels.at(-1)!.id).toBe(paid.subscription);
    expect(await reread(subscription.id)).toMatchObject({ status: "canceled" });
    expect((await app.request(downloadUrl(app.services, device))).status).toBe(410);
    const before = await history(subscription.id);
    const cancelledEmails = async () =>
      (await queuedEmails(app, "stripe-staff@example.com")).filter(
        (mail) => mail.kind === "subscription-cancelled",
      );
    const told = (await cancelledEmails()).length;
    expect(told).toBeGreaterThan(0);
    await deliverStripeEvent(
      app,
      "customer.subscription.deleted",
      standIn.subscriptions.get(paid.subscription!)!,
    );
    expect(await history(subscription.id)).toEqual(before);
    expect(await cancelledEmails()).toHaveLength(told);
  });

  it("changes nothing when Stripe refuses (502) or holds no payment to refund (409): no audit entry", async () => {
    const { subscription, paid } = await bought("basic-monthly");
    standIn.subscriptions.delete(paid.subscription!);
    for (const [path, body, status] of [
      ["extend", { days: 3 }, 502],
      ["cancel", { when: "now" }, 502],
      ["refund", {}, 409],
    ] as const) {
      const response = await admin(path, { subscriptionId: subscription.id, reason: "trying", ...body });
      expect(response.status, path).toBe(status);
    }
    expect(await reread(subscription.id)).toEqual(subscription);
    expect(await audit(subscription.id)).toEqual([]);
    expect(app.log.text).not.toContain(STAND_IN_SECRET_KEY);
  });
});
