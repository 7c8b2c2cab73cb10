// The customer's own billing: cancel at the period end and resume (at Stripe, or locally on the
// built-in checkout), the Stripe Customer Portal, and the plain receipt.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions, subscriptions, type Subscription } from "#server/db/schema/index.ts";
import {
  billingPortalUrl,
  cancelAtPeriodEnd,
  receipt,
  resumeSubscription,
} from "#server/domain/billing/self-service.ts";
import { DomainError } from "#server/domain/errors.ts";
import { statusOf } from "#server/http/api.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";
import {
  createStripeTestApp,
  STAND_IN_SECRET_KEY,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";

/** The refusal a call threw, as the HTTP edge would answer it. */
async function refusal(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return { status: statusOf(error).status, error: error.error, message: error.message };
}

async function subscriptionOf(app: TestApp, sessionId: string): Promise<Subscription> {
  const [row] = await app.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, sessionId));
  if (!row) throw new Error(`no subscription for ${sessionId}`);
  return row;
}

async function reread(app: TestApp, subscription: Subscription): Promise<Subscription> {
  const [row] = await app.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, subscription.id));
  return row!;
}

describe.each(databaseKinds)("self-service billing on the built-in checkout, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  async function buy(planId: string, email = "self-service@example.com") {
    const { sessionId } = await startCheckout(app, planId, email);
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    return subscriptionOf(app, sessionId);
  }

  it("cancels a monthly plan at the period end and resumes it, keeping it usable until then", async () => {
    const bought = await buy("basic-monthly");
    const cancelled = await cancelAtPeriodEnd(app.services, bought.id);
    expect(cancelled).toMatchObject({ id: bought.id, cancelAtPeriodEnd: true, status: "active" });
    expect(cancelled.expiresAt).toEqual(bought.expiresAt);
    expect(await reread(app, bought)).toMatchObject({ cancelAtPeriodEnd: true, status: "active" });

    expect((await cancelAtPeriodEnd(app.services, bought.id)).cancelAtPeriodEnd).toBe(true);
    const resumed = await resumeSubscription(app.services, bought.id);
    expect(resumed).toMatchObject({ cancelAtPeriodEnd: false, status: "active" });
    expect(resumed.expiresAt).toEqual(bought.expiresAt);
    expect((await reread(app, bought)).cancelAtPeriodEnd).toBe(false);
  });

  it("refuses to cancel or resume the Unlock Pass with 409, saying when it ends", async () => {
    const pass = await buy("unlock");
    for (const change of [cancelAtPeriodEnd, resumeSubscription]) {
      const refused = await refusal(change(app.services, pass.id));
      expect(refused).toMatchObject({ status: 409, error: "Plan does not renew" });
      expect(refused.message).toContain("ends on");
    }
    expect((await reread(app, pass)).cancelAtPeriodEnd).toBe(false);
  });

  it("cannot resume (or cancel) a plan whose period has ended or whose money went back: 410", async () => {
    const lapsed = await buy("pro-monthly");
    await cancelAtPeriodEnd(app.services, lapsed.id);
    const afterTheEnd = new Date(lapsed.expiresAt.getTime() + 1);
    expect(await refusal(resumeSubscription(app.services, lapsed.id, afterTheEnd))).toMatchObject({
      status: 410,
      error: "Subscription ended",
    });
    expect((await reread(app, lapsed)).cancelAtPeriodEnd).toBe(true);

    const refunded = await buy("pro-yearly");
    await app.services.db
      .update(subscriptions)
      .set({ status: "refunded" })
      .where(eq(subscriptions.id, refunded.id));
    const refused = await refusal(cancelAtPeriodEnd(app.services, refunded.id));
    expect(refused).toMatchObject({ status: 410 });
    expect(refused.message).toContain("refunded");
  });

  it("answers 404 for an unknown or malformed subscription id", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "' or 1=1 --", ""]) {
      expect((await refusal(cancelAtPeriodEnd(app.services, id))).status, id).toBe(404);
      expect((await refusal(receipt(app.services, id))).status, id).toBe(404);
      expect((await refusal(billingPortalUrl(app.services, id, "/account"))).status, id).toBe(404);
    }
  });

  it("has no billing portal without Stripe", async () => {
    const bought = await buy("basic-monthly");
    expect(await billingPortalUrl(app.services, bought.id, "/account")).toBeUndefined();
  });

  it("gives a plain receipt: order number, plan, amount, currency, paid at and e-mail", async () => {
    const before = Date.now();
    const bought = await buy("pro-yearly", "receipt@example.com");
    const [session] = await app.services.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, bought.checkoutSessionId));
    const plain = await receipt(app.services, bought.id);
    expect(plain).toMatchObject({
      planName: "Pro Yearly",
      amountCents: session!.amountCents,
      currency: "usd",
      customerEmail: "receipt@example.com",
    });
    expect(plain.amountCents).toBeGreaterThan(0);
    expect(plain.paidAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(plain.orderNumber).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/);
    expect(bought.id.replace(/-/g, "").toUpperCase()).toContain(plain.orderNumber.replace(/-/g, ""));
    // The checkout session id opens the success page: it never appears on a receipt.
    expect(JSON.stringify(plain)).not.toContain(bought.checkoutSessionId);
  });
});

describe.each(databaseKinds)("self-service billing with Stripe, on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  /** A plan bought on Stripe's hosted page and confirmed by the success page asking Stripe. */
  async function buy(planId: string) {
    const { sessionId } = await startCheckout(app, planId, "stripe-self@example.com");
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    return { subscription: await subscriptionOf(app, sessionId), paid };
  }

  it("cancels at Stripe first and records what Stripe answered; resume undoes it at Stripe", async () => {
    const { subscription, paid } = await buy("pro-monthly");
    expect(subscription.stripeSubscriptionId).toBe(paid.subscription);
    const remote = standIn.subscriptions.get(paid.subscription!)!;
    const periodEnd = new Date(remote.items.data[0]!.current_period_end * 1000);

    const cancelled = await cancelAtPeriodEnd(app.services, subscription.id);
    const update = standIn.subscriptionUpdates.at(-1)!;
    expect(update.id).toBe(paid.subscription);
    expect(update.params.get("cancel_at_period_end")).toBe("true");
    expect(update.authorization).toBe(`Bearer ${STAND_IN_SECRET_KEY}`);
    expect(standIn.subscriptions.get(paid.subscription!)!.cancel_at_period_end).toBe(true);
    expect(cancelled).toMatchObject({ cancelAtPeriodEnd: true, status: "active", expiresAt: periodEnd });

    const calls = standIn.subscriptionUpdates.length;
    await cancelAtPeriodEnd(app.services, subscription.id);
    expect(standIn.subscriptionUpdates).toHaveLength(calls);

    const resumed = await resumeSubscription(app.services, subscription.id);
    expect(standIn.subscriptionUpdates.at(-1)!.params.get("cancel_at_period_end")).toBe("false");
    expect(resumed).toMatchObject({ cancelAtPeriodEnd: false, status: "active" });
    expect((await reread(app, subscription)).cancelAtPeriodEnd).toBe(false);
  });

  it("changes nothing here when Stripe refuses, and says the provider is unavailable (502)", async () => {
    const { subscription, paid } = await buy("basic-monthly");
    standIn.subscriptions.delete(paid.subscription!);
    const refused = await refusal(cancelAtPeriodEnd(app.services, subscription.id));
    expect(refused).toMatchObject({ status: 502, error: "Payment provider unavailable" });
    expect((await reread(app, subscription)).cancelAtPeriodEnd).toBe(false);
    expect(app.log.text).not.toContain(STAND_IN_SECRET_KEY);
  });

  it("does not call Stripe for the Unlock Pass: 409", async () => {
    const { subscription } = await buy("unlock");
    const calls = standIn.subscriptionUpdates.length;
    expect((await refusal(cancelAtPeriodEnd(app.services, subscription.id))).status).toBe(409);
    expect(standIn.subscriptionUpdates).toHaveLength(calls);
  });

  it("opens the Customer Portal for the subscription's customer, returning to this store only", async () => {
    const { subscription, paid } = await buy("pro-yearly");
    const url = await billingPortalUrl(app.services, subscription.id, "/account");
    expect(url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    const call = standIn.portalSessions.at(-1)!;
    expect(call.params.get("customer")).toBe(paid.customer);
    expect(call.params.get("return_url")).toBe("http://localhost:3000/account");

    const calls = standIn.portalSessions.length;
    for (const elsewhere of ["https://evil.example/account", "//evil.example/x", "javascript:alert(1)"]) {
      expect(
        (await refusal(billingPortalUrl(app.services, subscription.id, elsewhere))).status,
        elsewhere,
      ).toBe(400);
    }
    expect(standIn.portalSessions).toHaveLength(calls);
    expect(app.log.text).not.toContain(url);
  });

  it("gives the pass's customer a portal too (Stripe keeps the receipt there)", async () => {
    const { subscription, paid } = await buy("unlock");
    expect(
      await billingPortalUrl(app.services, subscription.id, "http://localhost:3000/account"),
    ).toBeDefined();
    expect(standIn.portalSessions.at(-1)!.params.get("customer")).toBe(paid.customer);
  });

  it("receipts what Stripe charged", async () => {
    const { subscription, paid } = await buy("basic-monthly");
    expect(await receipt(app.services, subscription.id)).toMatchObject({
      planName: "Basic Monthly",
      amountCents: paid.amount_total,
      currency: paid.currency,
      customerEmail: "stripe-self@example.com",
    });
  });
});
