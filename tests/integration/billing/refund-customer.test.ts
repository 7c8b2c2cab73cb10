// A refund from the customer's side (issue 24, decision 103): whether staff refund or Stripe's
// charge.refunded or dispute arrives, the customer is e-mailed once (the amount, what stopped and
// when, how to buy again), the success link answers "refunded" with its date instead of a failure,
// and /account says "Refunded on <date>" with a way to contact support.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatLongDate } from "#core/format.ts";
import { findPlan } from "#core/plans.ts";
import { chargeReversals, subscriptions } from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout, verify } from "../../support/purchase.ts";
import {
  createStripeTestApp,
  deliverStripeEvent,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

async function subscriptionOf(app: TestApp, sessionId: string) {
  const [row] = await app.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, sessionId));
  return row!;
}

async function refundEmails(app: TestApp, to: string) {
  return (await queuedEmails(app, to)).filter((mail) => mail.kind === "subscription-refunded");
}

/** When the reversal of this subscription was applied: the date the customer is told. */
async function reversedAt(app: TestApp, subscriptionId: string): Promise<Date> {
  const [row] = await app.services.db
    .select()
    .from(chargeReversals)
    .where(eq(chargeReversals.subscriptionId, subscriptionId));
  return row!.appliedAt!;
}

describe.each(databaseKinds)("a staff refund from the customer's side, on %s", (kind) => {
  let app: TestApp;
  let staff: string;
  const BUYER = "refunded-buyer@example.com";
  const plan = findPlan("pro-monthly")!;
  let sessionId: string;
  let subscriptionId: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    staff = (await createAccount(app, STAFF_EMAIL)).cookie;
    sessionId = await buy(app, plan.id, BUYER);
    subscriptionId = (await subscriptionOf(app, sessionId)).id;
    const refunded = await app.request("/api/admin/subscriptions/refund", {
      json: { subscriptionId, reason: "customer asked within 7 days" },
      headers: { cookie: staff },
    });
    expect(refunded.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("e-mails the customer once: the amount, that the plan stopped and when, and a link to buy again", async () => {
    const [email, ...more] = await refundEmails(app, BUYER);
    expect(more).toEqual([]);
    expect(email!.subject).toContain(`${plan.name} is refunded: ${plan.price}`);
    const on = formatLongDate(await reversedAt(app, subscriptionId));
    for (const text of [
      plan.price,
      `Refunded on: ${on}`,
      orderNumberOf(subscriptionId),
      "configs stopped working",
      "will not renew",
      `${app.config.PUBLIC_URL}/pricing`,
    ])
      expect(email!.text, text).toContain(text);

    // A second refund is refused and tells no one again.
    const again = await app.request("/api/admin/subscriptions/refund", {
      json: { subscriptionId, reason: "clicked twice" },
      headers: { cookie: staff },
    });
    expect(again.status).toBe(409);
    expect(await refundEmails(app, BUYER)).toHaveLength(1);
  });

  it("answers the success link with 410 refunded and its date, for the link and for a new device", async () => {
    const at = (await reversedAt(app, subscriptionId)).toISOString();
    for (const body of [{ sessionId }, { sessionId, newDevice: true }]) {
      const response = await verify(app, body);
      expect(response.status).toBe(410);
      const answer = (await response.json()) as Record<string, unknown>;
      expect(answer).toMatchObject({ success: false, error: "refunded", refundedAt: at });
      expect(answer.message).toContain(`refunded on ${formatLongDate(at)}`);
    }
  });

  it("shows the plan on /account as Refunded on <date>, not green, with a link to contact support", async () => {
    const cookie = await signedInCustomer(app, BUYER);
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    const { subscriptions: listed } = (await response.json()) as { subscriptions: AccountSubscription[] };
    const at = await reversedAt(app, subscriptionId);
    expect(listed).toMatchObject([
      { id: subscriptionId, status: "refunded", reversedAt: at.toISOString(), usable: false, devices: [] },
    ]);
    const html = await (await app.request("/account", { headers: { cookie } })).text();
    const badge = /<span[^>]*data-testid="subscription-status"[^>]*>([^<]*)<\/span>/.exec(html);
    expect(badge?.[1]).toBe(`Refunded on ${formatLongDate(at)}`);
    expect(badge?.[0]).not.toContain("bg-green");
    const notice = /<p[^>]*data-testid="reversed-notice"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";
    expect(notice).toContain(`Refunded on ${formatLongDate(at)}`);
    expect(notice).toMatch(/href="\/contact"[^>]*>Contact support</);
  });
});

describe.each(databaseKinds)("Stripe's refunds and disputes, from the customer's side, on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  let buyers = 0;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  async function bought(planId: string) {
    const email = `stripe-refund-${++buyers}@example.com`;
    const { sessionId } = await startCheckout(app, planId, email);
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    return { email, sessionId, paid, subscription: await subscriptionOf(app, sessionId) };
  }

  function charge(paid: ReturnType<StripeStandIn["markPaid"]>, refundedCents: number) {
    return {
      id: `ch_${paid.id.slice(-8)}`,
      object: "charge",
      amount: paid.amount_total,
      amount_refunded: refundedCents,
      currency: paid.currency,
      refunded: refundedCents === paid.amount_total,
      customer: paid.customer,
      payment_intent: paid.payment_intent,
    };
  }

  it("e-mails a refund made in Stripe's dashboard once; a partial refund tells nothing", async () => {
    const { email, sessionId, paid, subscription } = await bought("unlock");
    await deliverStripeEvent(app, "charge.refunded", charge(paid, 100));
    expect(await refundEmails(app, email)).toEqual([]);
    await deliverStripeEvent(app, "charge.refunded", charge(paid, paid.amount_total!));
    await deliverStripeEvent(app, "charge.refunded", charge(paid, paid.amount_total!));
    const emails = await refundEmails(app, email);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.text).toContain(findPlan("unlock")!.price);
    const answer = await verify(app, { sessionId });
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      error: "refunded",
      refundedAt: (await reversedAt(app, subscription.id)).toISOString(),
    });
  });

  it("tells the customer of a dispute in its own words, and the success link answers disputed", async () => {
    const { email, sessionId, paid, subscription } = await bought("pro-monthly");
    await deliverStripeEvent(app, "charge.dispute.created", {
      id: `dp_${paid.id.slice(-8)}`,
      object: "dispute",
      amount: paid.amount_total,
      currency: paid.currency,
      charge: charge(paid, 0),
      payment_intent: paid.payment_intent,
      reason: "fraudulent",
      status: "needs_response",
    });
    const [notice, ...more] = await refundEmails(app, email);
    expect(more).toEqual([]);
    expect(notice!.subject).toContain("disputed");
    expect(notice!.text).toContain(`Amount disputed: ${findPlan("pro-monthly")!.price}`);
    expect(notice!.text).toContain(`${app.config.PUBLIC_URL}/pricing`);
    const answer = await verify(app, { sessionId });
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({
      error: "disputed",
      disputedAt: (await reversedAt(app, subscription.id)).toISOString(),
    });
  });

  it("e-mails the buyer whose payment was refunded before it was recorded, and sends no receipt", async () => {
    const email = `stripe-refund-${++buyers}@example.com`;
    const { sessionId } = await startCheckout(app, "unlock", email);
    const paid = standIn.markPaid(sessionId);
    await deliverStripeEvent(app, "charge.refunded", charge(paid, paid.amount_total!));
    expect(await refundEmails(app, email)).toEqual([]);
    const answer = await verify(app, { sessionId });
    expect(answer.status).toBe(410);
    expect(await answer.json()).toMatchObject({ error: "refunded" });
    const kinds = (await queuedEmails(app, email)).map((mail) => mail.kind);
    expect(kinds).toEqual(["subscription-refunded"]);
  });
});
