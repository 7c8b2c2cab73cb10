import { count, eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLANS } from "#core/plans.ts";
import {
  checkoutSessions,
  devices,
  outboxMessages,
  paymentEvents,
  rateLimit,
  subscriptions,
} from "#server/db/schema/index.ts";
import { VERIFY_LIMITS } from "#server/domain/billing/verify.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout, verify } from "../../support/purchase.ts";
import {
  createStripeTestApp,
  STAND_IN_SECRET_KEY,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";

const WEBHOOK_SECRET = "whsec_test_naijalink_0123456789";
const stripe = new Stripe("sk_test_unused");
let eventCounter = 0;

function signedEvent(
  type: string,
  object: Record<string, unknown>,
  id = `evt_${++eventCounter}_${Date.now()}`,
) {
  const payload = JSON.stringify({ id, object: "event", type, api_version: "2025-01-01", data: { object } });
  return {
    id,
    payload,
    signature: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
  };
}

describe.each(databaseKinds)("the Stripe provider against a local stand-in on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind, env: { STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } }));
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  const post = (payload: string, signature: string | null) =>
    app.request("/api/webhooks/stripe", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(signature ? { "stripe-signature": signature } : {}),
      },
      body: payload,
    });

  const checkout = (planId: string, customerEmail?: string) => startCheckout(app, planId, customerEmail);

  async function state() {
    const db = app.services.db;
    const [subs] = await db.select({ value: count() }).from(subscriptions);
    const [devs] = await db.select({ value: count() }).from(devices);
    const [mails] = await db.select({ value: count() }).from(outboxMessages);
    const [events] = await db.select({ value: count() }).from(paymentEvents);
    const rows = await db.select().from(subscriptions);
    return {
      subscriptions: subs!.value,
      devices: devs!.value,
      mails: mails!.value,
      events: events!.value,
      rows,
    };
  }

  it("creates a Checkout Session per plan with catalogue prices, the right mode, URLs and an idempotency key", async () => {
    for (const plan of PLANS) {
      const before = standIn.creates.length;
      const { url, sessionId } = await checkout(plan.id);
      expect(url).toBe(`https://checkout.stripe.test/c/pay/${sessionId}`);
      const created = standIn.creates[before]!;
      const params = Object.fromEntries(created.params);
      expect(created.authorization).toBe(`Bearer ${STAND_IN_SECRET_KEY}`);
      expect(created.idempotencyKey).toMatch(/^create-checkout-/);
      expect(params.mode).toBe(plan.id === "unlock" ? "payment" : "subscription");
      expect(params["line_items[0][price_data][unit_amount]"]).toBe(String(plan.priceCents));
      expect(params["line_items[0][price_data][currency]"]).toBe("usd");
      expect(params["line_items[0][quantity]"]).toBe("1");
      expect(params["line_items[0][price_data][recurring][interval]"]).toBe(
        plan.id === "unlock" ? undefined : plan.id === "pro-yearly" ? "year" : "month",
      );
      expect(params.success_url).toBe(
        "http://localhost:3000/payment-success?session_id={CHECKOUT_SESSION_ID}",
      );
      expect(params.cancel_url).toBe("http://localhost:3000/get-started/payment");
      expect(params.customer_email).toBe("buyer@example.com");
      const [row] = await app.services.db
        .select()
        .from(checkoutSessions)
        .where(eq(checkoutSessions.id, sessionId));
      expect(row).toMatchObject({
        provider: "stripe",
        planId: plan.id,
        amountCents: plan.priceCents,
        status: "open",
      });
    }
    const keys = standIn.creates.map((entry) => entry.idempotencyKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("fulfils checkout.session.completed once; a replay and a bad signature change nothing", async () => {
    const { sessionId } = await checkout("pro-yearly", "yearly@example.com");
    const paid = standIn.markPaid(sessionId);
    const before = await state();

    const forged = signedEvent("checkout.session.completed", { ...paid });
    const badSignature = await post(forged.payload, forged.signature.replace(/v1=[0-9a-f]{4}/, "v1=0000"));
    expect(badSignature.status).toBe(400);
    expect(await badSignature.json()).toMatchObject({ error: "Invalid request" });
    const tampered = await post(forged.payload.replace("yearly@", "attacker@"), forged.signature);
    expect(tampered.status).toBe(400);
    expect((await post(forged.payload, null)).status).toBe(400);
    const signedWithOtherSecret = stripe.webhooks.generateTestHeaderString({
      payload: forged.payload,
      secret: "whsec_other",
    });
    expect((await post(forged.payload, signedWithOtherSecret)).status).toBe(400);
    expect(await state()).toEqual(before);

    const event = signedEvent("checkout.session.completed", { ...paid });
    const first = await post(event.payload, event.signature);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: true, duplicate: false });
    const after = await state();
    expect(after.subscriptions).toBe(before.subscriptions + 1);
    expect(after.devices).toBe(before.devices + 1);
    expect(after.mails).toBe(before.mails + 2); // the receipt and the config e-mail
    const subscription = after.rows.find((row) => row.checkoutSessionId === sessionId)!;
    expect(subscription).toMatchObject({
      planType: "pro_yearly",
      deviceLimit: 3,
      stripeSubscriptionId: paid.subscription,
      stripeCustomerId: paid.customer,
      customerEmail: "yearly@example.com",
    });

    const replay = await post(
      event.payload,
      stripe.webhooks.generateTestHeaderString({ payload: event.payload, secret: WEBHOOK_SECRET }),
    );
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ duplicate: true });
    expect(await state()).toEqual(after);

    const verified = await app.request("/api/verify-payment", { json: { sessionId } });
    expect(await verified.json()).toMatchObject({
      success: true,
      configSlot: 1,
      subscription: { activeDevices: 1 },
    });
  });

  it("answers 502 without leaking the key when Stripe does not know a recorded session", async () => {
    const { sessionId } = await checkout("basic-monthly");
    standIn.sessions.delete(sessionId);
    const response = await app.request("/api/verify-payment", { json: { sessionId } });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ success: false, error: "Payment provider unavailable" });
    expect(app.log.text).not.toContain(STAND_IN_SECRET_KEY);
  });

  /** Moves the "Stripe was just asked about this session" window into the past, as time would. */
  async function letStripeCheckWindowPass(sessionId: string) {
    await app.services.db
      .update(rateLimit)
      .set({ lastRequest: sql`${rateLimit.lastRequest} - ${VERIFY_LIMITS.stripeCheck.windowMs + 1}` })
      .where(eq(rateLimit.key, `app:stripe-session-check:${sessionId}`));
  }

  it("verifies a paid session before its webhook arrives by asking Stripe", async () => {
    const { sessionId } = await checkout("unlock");
    const unpaid = await app.request("/api/verify-payment", { json: { sessionId } });
    expect(unpaid.status).toBe(402);
    expect(await unpaid.json()).toMatchObject({ success: false, error: "Payment not completed" });
    standIn.markPaid(sessionId);
    await letStripeCheckWindowPass(sessionId);
    const paid = await app.request("/api/verify-payment", { json: { sessionId } });
    expect(await paid.json()).toMatchObject({
      success: true,
      configSlot: 1,
      subscription: { planType: "unlock" },
    });
  });

  it("keeps the name Stripe's checkout took when the buyer gave none, and the buyer's own otherwise", async () => {
    const { sessionId: unnamed } = await checkout("unlock", "unnamed@example.com");
    const started = await app.request("/api/create-checkout", {
      json: { planId: "unlock", customerEmail: "named@example.com", customerName: "Ada Obi" },
    });
    expect(started.status).toBe(200);
    const [namedRow] = await app.services.db
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.customerEmail, "named@example.com"));
    for (const sessionId of [unnamed, namedRow!.id]) {
      standIn.markPaid(sessionId, { customer_details: { email: null, name: "Card Holder" } });
      await letStripeCheckWindowPass(sessionId);
      expect((await app.request("/api/verify-payment", { json: { sessionId } })).status).toBe(200);
    }
    const names = await app.services.db
      .select({ id: checkoutSessions.id, name: checkoutSessions.customerName })
      .from(checkoutSessions);
    expect(names.find((row) => row.id === unnamed)?.name).toBe("Card Holder");
    expect(names.find((row) => row.id === namedRow!.id)?.name).toBe("Ada Obi");
  });

  it("asks Stripe about an unpaid session at most once per few seconds, however often the page polls", async () => {
    const { sessionId } = await checkout("basic-monthly");
    const before = standIn.retrieves;
    const answers = [];
    for (let poll = 0; poll < 5; poll++)
      answers.push((await app.request("/api/verify-payment", { json: { sessionId } })).status);
    expect(answers).toEqual([402, 402, 402, 402, 402]);
    expect(standIn.retrieves - before).toBe(1);
    await letStripeCheckWindowPass(sessionId);
    await app.request("/api/verify-payment", { json: { sessionId } });
    expect(standIn.retrieves - before).toBe(2);
  });

  it("renews on invoice.paid, goes past_due on a failed payment, and revokes on cancellation and refund", async () => {
    const { sessionId, buyerCookie } = await checkout("pro-monthly");
    const paid = standIn.markPaid(sessionId);
    const completed = signedEvent("checkout.session.completed", { ...paid });
    await post(completed.payload, completed.signature);
    await verify(app, { sessionId, newDevice: true }, buyerCookie);
    const find = async () =>
      (
        await app.services.db
          .select()
          .from(subscriptions)
          .where(eq(subscriptions.checkoutSessionId, sessionId))
      )[0]!;
    const live = async (subscriptionId: string) =>
      (await app.services.db.select().from(devices).where(eq(devices.subscriptionId, subscriptionId))).filter(
        (device) => device.revokedAt === null,
      ).length;
    const original = await find();
    expect(await live(original.id)).toBe(2);

    const failed = signedEvent("invoice.payment_failed", {
      id: "in_1",
      object: "invoice",
      parent: { subscription_details: { subscription: paid.subscription } },
      lines: { data: [] },
    });
    expect((await post(failed.payload, failed.signature)).status).toBe(200);
    expect((await find()).status).toBe("past_due");

    const periodEnd = Math.floor(original.expiresAt.getTime() / 1000) + 30 * 86_400;
    const renewed = signedEvent("invoice.paid", {
      id: "in_2",
      object: "invoice",
      billing_reason: "subscription_cycle",
      parent: { subscription_details: { subscription: paid.subscription } },
      lines: { data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }] },
    });
    expect((await post(renewed.payload, renewed.signature)).status).toBe(200);
    const afterRenewal = await find();
    expect(afterRenewal.status).toBe("active");
    expect(afterRenewal.expiresAt.getTime()).toBe(periodEnd * 1000);

    const cancelAtEnd = signedEvent("customer.subscription.updated", {
      id: paid.subscription,
      object: "subscription",
      status: "active",
      cancel_at_period_end: true,
      cancel_at: periodEnd,
      items: { data: [{ current_period_end: periodEnd }] },
    });
    expect((await post(cancelAtEnd.payload, cancelAtEnd.signature)).status).toBe(200);
    expect(await find()).toMatchObject({ cancelAtPeriodEnd: true, status: "active" });
    expect(await live(original.id)).toBe(2);

    const deleted = signedEvent("customer.subscription.deleted", {
      id: paid.subscription,
      object: "subscription",
      status: "canceled",
      cancel_at_period_end: false,
      cancel_at: null,
      items: { data: [] },
    });
    expect((await post(deleted.payload, deleted.signature)).status).toBe(200);
    expect((await find()).status).toBe("canceled");
    expect(await live(original.id)).toBe(0);
    const afterCancel = await app.request("/api/verify-payment", { json: { sessionId } });
    expect(afterCancel.status).toBe(410);
    expect(await afterCancel.json()).toMatchObject({ success: false, error: "Subscription ended" });
  });

  it("never revives a cancelled or refunded subscription on a late invoice.paid", async () => {
    for (const ended of ["canceled", "refunded"] as const) {
      const { sessionId } = await checkout("pro-monthly");
      const paid = standIn.markPaid(sessionId);
      const completed = signedEvent("checkout.session.completed", { ...paid });
      await post(completed.payload, completed.signature);
      const [subscription] = await app.services.db
        .update(subscriptions)
        .set({ status: ended, expiresAt: new Date() })
        .where(eq(subscriptions.checkoutSessionId, sessionId))
        .returning();
      const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
      const late = signedEvent("invoice.paid", {
        id: `in_late_${ended}`,
        object: "invoice",
        billing_reason: "subscription_cycle",
        parent: { subscription_details: { subscription: paid.subscription } },
        lines: { data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }] },
      });
      expect((await post(late.payload, late.signature)).status).toBe(200);
      const [after] = await app.services.db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.id, subscription!.id));
      expect(after).toMatchObject({ status: ended, expiresAt: subscription!.expiresAt });
    }
  });

  it("refunds the 7-day pass on charge.refunded and revokes its config", async () => {
    const { sessionId } = await checkout("unlock");
    const paid = standIn.markPaid(sessionId);
    const verified = (await (await app.request("/api/verify-payment", { json: { sessionId } })).json()) as {
      downloadUrl: string;
    };
    const partial = signedEvent("charge.refunded", {
      id: "ch_1",
      object: "charge",
      refunded: false,
      amount_refunded: 100,
      payment_intent: paid.payment_intent,
      customer: paid.customer,
    });
    await post(partial.payload, partial.signature);
    const configPath = new URL(verified.downloadUrl).pathname;
    expect((await app.request(configPath)).status).toBe(200);
    const full = signedEvent("charge.refunded", {
      id: "ch_1",
      object: "charge",
      refunded: true,
      amount_refunded: 999,
      currency: "usd",
      payment_intent: paid.payment_intent,
      customer: paid.customer,
    });
    expect((await post(full.payload, full.signature)).status).toBe(200);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    expect(subscription!.status).toBe("refunded");
    expect((await app.request(configPath)).status).toBe(410);
  });

  it("creates exactly one subscription and one device from 100 concurrent verify-payment and webhook calls", async () => {
    const { sessionId } = await checkout("pro-monthly");
    const paid = standIn.markPaid(sessionId);
    const before = await state();
    const calls = Array.from({ length: 100 }, (_, index) => {
      // A quarter are success-page verifications (fewer than the per-session limit allows).
      if (index % 4 === 0) return app.request("/api/verify-payment", { json: { sessionId } });
      // Stripe retries deliver the same event id; distinct ids stand for completed + async_payment_succeeded.
      const event = signedEvent(
        "checkout.session.completed",
        { ...paid },
        index % 4 === 1 ? "evt_concurrent_same" : undefined,
      );
      return post(event.payload, event.signature);
    });
    const responses = await Promise.all(calls);
    expect(responses.map((response) => response.status).every((status) => status === 200)).toBe(true);
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as Array<
      Record<string, unknown>
    >;
    const urls = new Set(bodies.filter((body) => "downloadUrl" in body).map((body) => body.downloadUrl));
    expect(urls.size).toBe(1);
    const after = await state();
    expect(after.subscriptions).toBe(before.subscriptions + 1);
    expect(after.devices).toBe(before.devices + 1);
    expect(after.mails).toBe(before.mails + 2); // the receipt and the config e-mail
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    const issued = await app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    expect(issued.map((device) => device.slot)).toEqual([1]);
  }, 120_000);
});
