// What a careful merchant checks on Stripe payments: the amount paid is the plan's price, a refund
// or dispute that arrives before its payment still counts, a dispute revokes and tells the staff,
// and nothing revives a subscription whose money went back.
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import {
  chargeReversals,
  checkoutSessions,
  devices,
  outboxMessages,
  subscriptions,
  vpnServers,
} from "#server/db/schema/index.ts";
import { fullPeerSet } from "#server/domain/vpn/node-peers.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { queuedEmailsWhere } from "../../support/outbox.ts";
import { startCheckout, verify as verifyAs } from "../../support/purchase.ts";
import {
  deliverStripeEvent,
  createStripeTestApp,
  STAND_IN_SECRET_KEY,
  type StandInSession,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";

describe.each(databaseKinds)("Stripe payment checks on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({
      kind,
      env: { STAFF_EMAILS: "boss@naijalink.example,support-lead@naijalink.example" },
    }));
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  const deliver = (type: string, object: object, id?: string) => deliverStripeEvent(app, type, object, id);

  /** The buyer cookie of the browser that started each session, so `verify(…, true)` comes from it. */
  const payingBrowser = new Map<string, string>();

  async function checkout(planId: string, customerEmail = "buyer@example.com") {
    const { sessionId, buyerCookie } = await startCheckout(app, planId, customerEmail);
    payingBrowser.set(sessionId, buyerCookie);
    return sessionId;
  }

  const verify = (sessionId: string, newDevice?: boolean) =>
    verifyAs(
      app,
      { sessionId, ...(newDevice ? { newDevice } : {}) },
      newDevice ? payingBrowser.get(sessionId) : undefined,
    );

  async function subscriptionOf(sessionId: string) {
    const [row] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    return row;
  }

  async function sessionRow(sessionId: string) {
    const [row] = await app.services.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, sessionId));
    return row!;
  }

  const devicesOf = (subscriptionId: string) =>
    app.services.db.select().from(devices).where(eq(devices.subscriptionId, subscriptionId));

  /** The charge Stripe makes for a paid session (a subscription's first invoice has its own payment intent). */
  function chargeOf(paid: StandInSession, extra: Record<string, unknown> = {}) {
    return {
      id: `ch_${paid.id.slice(-8)}`,
      object: "charge",
      amount: paid.amount_total,
      amount_refunded: paid.amount_total,
      currency: paid.currency,
      refunded: true,
      customer: paid.customer,
      payment_intent: paid.payment_intent ?? `pi_invoice_${paid.id.slice(-8)}`,
      ...extra,
    };
  }

  function disputeOf(paid: StandInSession, reason = "fraudulent") {
    const charge = chargeOf(paid);
    standIn.charges.set(charge.id, {
      id: charge.id,
      object: "charge",
      customer: charge.customer,
      payment_intent: charge.payment_intent,
      billing_details: { email: "cardholder@example.com" },
    });
    return {
      id: `dp_${paid.id.slice(-8)}`,
      object: "dispute",
      amount: paid.amount_total,
      currency: paid.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      reason,
      status: "needs_response",
      evidence_details: { due_by: Math.floor(Date.now() / 1000) + 7 * 86_400 },
    };
  }

  async function staffNotices(disputeId: string) {
    const notices = await queuedEmailsWhere(app.services, eq(outboxMessages.kind, "dispute-notice"));
    return notices.filter((message) => message.text.includes(disputeId));
  }

  it("records a webhook payment of another amount or currency than the plan's price and fulfils nothing", async () => {
    const unlock = findPlan("unlock")!;
    for (const paidAs of [
      { amount_total: 1, currency: "usd" },
      { amount_total: unlock.priceCents, currency: "eur" },
    ]) {
      const sessionId = await checkout("unlock");
      const paid = standIn.markPaid(sessionId, paidAs);
      await deliver("checkout.session.completed", paid);

      expect(await subscriptionOf(sessionId)).toBeUndefined();
      expect(await sessionRow(sessionId)).toMatchObject({
        status: "amount_mismatch",
        amountCents: unlock.priceCents,
        currency: "usd",
        paidAmountCents: paidAs.amount_total,
        paidCurrency: paidAs.currency,
      });
      const retrievesBefore = standIn.retrieves;
      const answer = await verify(sessionId);
      expect(answer.status).toBe(409);
      const body = (await answer.json()) as { success: boolean; error: string; message: string };
      expect(body).toMatchObject({ success: false, error: "Payment needs review" });
      expect(body.message).toContain("contact support");
      expect(standIn.retrieves).toBe(retrievesBefore);
      // Async payment success for the same session changes nothing.
      await deliver("checkout.session.async_payment_succeeded", paid);
      expect(await subscriptionOf(sessionId)).toBeUndefined();
    }
    const warning = app.log.text.split("\n").find((line) => line.includes("amount_mismatch"));
    expect(warning).toContain('"received":{"amountCents":1,"currency":"usd"}');
    expect(app.log.text).not.toContain(STAND_IN_SECRET_KEY);
  });

  it("records a mismatch learnt by verify-payment asking Stripe, answers 409 and issues no config", async () => {
    const sessionId = await checkout("pro-monthly");
    standIn.markPaid(sessionId, { amount_total: 100 });
    const answer = await verify(sessionId);
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({ success: false, error: "Payment needs review" });
    expect(await sessionRow(sessionId)).toMatchObject({ status: "amount_mismatch", paidAmountCents: 100 });
    expect(await subscriptionOf(sessionId)).toBeUndefined();
    expect((await verify(sessionId, true)).status).toBe(409);
    expect(await subscriptionOf(sessionId)).toBeUndefined();
  });

  it("applies a full refund delivered before checkout.session.completed: refunded, no device, no config", async () => {
    const sessionId = await checkout("unlock");
    const paid = standIn.markPaid(sessionId);
    await deliver("charge.refunded", chargeOf(paid));
    const [held] = await app.services.db
      .select()
      .from(chargeReversals)
      .where(eq(chargeReversals.paymentIntentId, paid.payment_intent!));
    expect(held).toMatchObject({ kind: "refund", appliedAt: null });

    await deliver("checkout.session.completed", paid);
    const subscription = (await subscriptionOf(sessionId))!;
    expect(subscription.status).toBe("refunded");
    expect(await devicesOf(subscription.id)).toEqual([]);
    const answer = await verify(sessionId);
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      success: false,
      error: "refunded",
      refundedAt: expect.any(String),
    });
    expect(await devicesOf(subscription.id)).toEqual([]);
    const [applied] = await app.services.db
      .select()
      .from(chargeReversals)
      .where(eq(chargeReversals.id, held!.id));
    expect(applied).toMatchObject({ subscriptionId: subscription.id });
    expect(applied!.appliedAt).not.toBeNull();
  });

  it("applies a full refund delivered before verify-payment learns of the payment from Stripe", async () => {
    const sessionId = await checkout("pro-monthly");
    const paid = standIn.markPaid(sessionId);
    // A subscription's charge is known by its customer: its payment intent is the invoice's.
    await deliver("charge.refunded", chargeOf(paid));
    const answer = await verify(sessionId);
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      success: false,
      error: "refunded",
      refundedAt: expect.any(String),
    });
    const subscription = (await subscriptionOf(sessionId))!;
    expect(subscription.status).toBe("refunded");
    expect(await devicesOf(subscription.id)).toEqual([]);
    await deliver("checkout.session.completed", paid);
    expect(await devicesOf(subscription.id)).toEqual([]);
  });

  it("applies a dispute delivered before the payment and tells the staff at once", async () => {
    const sessionId = await checkout("basic-monthly", "early@example.com");
    const paid = standIn.markPaid(sessionId);
    const dispute = disputeOf(paid, "product_not_received");
    await deliver("charge.dispute.created", dispute);
    const notices = await staffNotices(dispute.id);
    expect(notices.map((notice) => notice.to).sort()).toEqual([
      "boss@naijalink.example",
      "support-lead@naijalink.example",
    ]);
    expect(notices[0]!.text).toContain("not recorded yet");
    expect(notices[0]!.text).toContain("cardholder@example.com");

    await deliver("checkout.session.completed", paid);
    const subscription = (await subscriptionOf(sessionId))!;
    expect(subscription.status).toBe("disputed");
    expect(await devicesOf(subscription.id)).toEqual([]);
    const answer = await verify(sessionId);
    expect(answer.status).toBe(410);
    expect(((await answer.json()) as { message: string }).message).toContain("disputed");
  });

  it("revokes every device on charge.dispute.created, drops its peers and e-mails each staff address once", async () => {
    const plan = findPlan("pro-monthly")!;
    const sessionId = await checkout("pro-monthly", "disputer@example.com");
    const paid = standIn.markPaid(sessionId);
    await deliver("checkout.session.completed", paid);
    const first = (await (await verify(sessionId)).json()) as { downloadUrl: string };
    expect((await verify(sessionId, true)).status).toBe(200);
    const subscription = (await subscriptionOf(sessionId))!;
    const issued = await devicesOf(subscription.id);
    expect(issued).toHaveLength(2);
    const [server] = await app.services.db
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.id, issued[0]!.vpnServerId!));
    const peerKeys = async () => {
      const feed = await fullPeerSet(app.services.db, app.services.sealer, server!, new Date());
      return feed.kind === "full" ? feed.peers.map((peer) => peer.publicKey) : [];
    };
    expect(await peerKeys()).toEqual(expect.arrayContaining(issued.map((device) => device.publicKey)));

    const dispute = disputeOf(paid);
    const event = await deliver("charge.dispute.created", dispute);
    expect((await subscriptionOf(sessionId))!.status).toBe("disputed");
    const live = await app.services.db
      .select()
      .from(devices)
      .where(and(eq(devices.subscriptionId, subscription.id), isNull(devices.revokedAt)));
    expect(live).toEqual([]);
    const keys = await peerKeys();
    for (const device of issued) expect(keys).not.toContain(device.publicKey);
    expect((await app.request(new URL(first.downloadUrl).pathname)).status).toBe(410);
    const answer = await verify(sessionId);
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      success: false,
      error: "disputed",
      disputedAt: expect.any(String),
    });

    // A replay of the event sends nothing more.
    await deliver("charge.dispute.created", dispute, event.id);
    const notices = await staffNotices(dispute.id);
    expect(notices.map((notice) => notice.to).sort()).toEqual([
      "boss@naijalink.example",
      "support-lead@naijalink.example",
    ]);
    expect(notices[0]!.subject).toBe(`Payment disputed: ${plan.price} (fraudulent)`);
    expect(notices[0]!.text).toContain(subscription.id);
    expect(notices[0]!.text).toContain("disputer@example.com");
    expect(notices[0]!.text).toContain("Reason: fraudulent");
    expect(notices[0]!.text).not.toContain("/api/configs/");
    expect(notices[0]!.text).not.toContain("PrivateKey");
  });

  it("keeps a refunded subscription refunded through a later invoice.paid and subscription updates", async () => {
    const sessionId = await checkout("pro-monthly");
    const paid = standIn.markPaid(sessionId);
    await deliver("checkout.session.completed", paid);
    expect((await verify(sessionId)).status).toBe(200);
    await deliver("charge.refunded", chargeOf(paid));
    const refunded = (await subscriptionOf(sessionId))!;
    expect(refunded.status).toBe("refunded");

    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
    await deliver("invoice.paid", {
      id: `in_${sessionId.slice(-8)}`,
      object: "invoice",
      billing_reason: "subscription_cycle",
      parent: { subscription_details: { subscription: paid.subscription } },
      lines: { data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }] },
    });
    const remote = {
      id: paid.subscription,
      object: "subscription",
      cancel_at_period_end: false,
      cancel_at: null,
      items: { data: [{ current_period_end: periodEnd }] },
    };
    await deliver("customer.subscription.updated", { ...remote, status: "past_due" });
    await deliver("customer.subscription.updated", { ...remote, status: "active" });
    await deliver("customer.subscription.deleted", { ...remote, status: "canceled" });
    const after = (await subscriptionOf(sessionId))!;
    expect(after).toMatchObject({ status: "refunded", expiresAt: refunded.expiresAt });
    const live = (await devicesOf(after.id)).filter((device) => device.revokedAt === null);
    expect(live).toEqual([]);
    expect((await verify(sessionId)).status).toBe(410);
  });
});
