// The 7-day guarantee in one click (issue 38, decision 136): a customer refunds their own unused
// purchase from /account. Inside the rules it is refunded once (ledger, e-mail, audit naming the
// customer, devices revoked); a refund twice, after the window, after activation, of someone
// else's plan or without a session is refused with a 4xx and changes nothing. Live mode asks
// Stripe for the refund of the purchase's own payment and cancels its subscription.
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import {
  devices,
  ledgerEntries,
  staffAuditLog,
  subscriptions,
  type Subscription,
} from "#server/db/schema/index.ts";
import { ledgerOfSubscriptions } from "#server/domain/billing/ledger.ts";
import { DAY_MS } from "#server/domain/time.ts";
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

/** Everything a refund could change of one subscription, to compare before and after a refusal. */
async function stateOf(app: TestApp, subscriptionId: string) {
  const db = app.services.db;
  const [subscription] = await db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
  const owned = await db
    .select({ id: devices.id, revokedAt: devices.revokedAt })
    .from(devices)
    .where(eq(devices.subscriptionId, subscriptionId));
  return {
    subscription,
    devices: owned,
    ledger: await ledgerOfSubscriptions(db, [subscriptionId]),
    audit: await db.select().from(staffAuditLog).where(eq(staffAuditLog.targetId, subscriptionId)),
    emails: (await queuedEmails(app, subscription!.customerEmail!)).map((mail) => mail.kind),
  };
}

async function subscriptionOfSession(app: TestApp, sessionId: string): Promise<Subscription> {
  const [row] = await app.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, sessionId));
  return row!;
}

const refund = (app: TestApp, subscriptionId: string, cookie = "") =>
  accountRequest(app, "subscriptions/refund", { subscriptionId }, cookie);

describe.each(databaseKinds)("the 7-day guarantee on the built-in checkout, on %s", (kind) => {
  let app: TestApp;
  let buyers = 0;

  beforeAll(async () => {
    app = await createTestApp({ kind });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  async function customer(planId = "pro-monthly") {
    const email = `guarantee-${++buyers}@example.com`;
    const subscription = await subscriptionOfSession(app, await buy(app, planId, email));
    return { email, subscription, cookie: await signedInCustomer(app, email) };
  }

  it("refunds an unused purchase within 7 days: ended, devices revoked, one refund row, one e-mail, the customer in the audit log", async () => {
    const buyer = await customer();
    const plan = findPlan("pro-monthly")!;
    const accountPage = await (await app.request("/account", { headers: { cookie: buyer.cookie } })).text();
    expect(accountPage).toContain("Refund this purchase");

    const response = await refund(app, buyer.subscription.id, buyer.cookie);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ subscriptionId: buyer.subscription.id, status: "refunded" });

    const after = await stateOf(app, buyer.subscription.id);
    expect(after.subscription!.status).toBe("refunded");
    expect(after.devices.length).toBeGreaterThan(0);
    expect(after.devices.every((device) => device.revokedAt !== null)).toBe(true);
    expect(after.ledger.filter((row) => row.kind === "refund").map((row) => row.amountCents)).toEqual([
      plan.priceCents,
    ]);
    expect(after.emails.filter((mail) => mail === "subscription-refunded")).toHaveLength(1);
    const [entry, ...more] = after.audit;
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      actor: "customer",
      staffEmail: buyer.email,
      action: "subscription.refund",
      targetType: "subscription",
      targetId: buyer.subscription.id,
    });
    expect(entry!.details).toMatchObject({ amountCents: plan.priceCents, provider: "test", guarantee: true });
    // The console's audit page shows who: the customer's address, marked as a customer.
    const staff = await createAccount(app, STAFF_EMAIL);
    const audit = await app.request(`/admin/audit?targetId=${buyer.subscription.id}`, {
      headers: { cookie: staff.cookie },
    });
    expect(audit.status).toBe(200);
    const auditHtml = await audit.text();
    expect(auditHtml).toContain(buyer.email);
    expect(auditHtml).toContain("(customer)");
    // The payments page lists the refund; /account no longer offers one.
    const billing = await (
      await app.request("/account/billing", { headers: { cookie: buyer.cookie } })
    ).text();
    expect(billing).toContain("Refund");
    expect(billing).toContain(">Refunded<");
    const page = await (await app.request("/account", { headers: { cookie: buyer.cookie } })).text();
    expect(page).not.toContain("Refund this purchase");

    // Twice: a clear 409, nothing more given back, told or recorded.
    const again = await refund(app, buyer.subscription.id, buyer.cookie);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ message: "This purchase has been refunded already." });
    expect(await stateOf(app, buyer.subscription.id)).toEqual(after);
  });

  it("refunds once when two requests race: one 200, one 409, one refund row and one e-mail", async () => {
    const buyer = await customer();
    const answers = await Promise.all([
      refund(app, buyer.subscription.id, buyer.cookie),
      refund(app, buyer.subscription.id, buyer.cookie),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const after = await stateOf(app, buyer.subscription.id);
    expect(after.ledger.filter((row) => row.kind === "refund")).toHaveLength(1);
    expect(after.emails.filter((mail) => mail === "subscription-refunded")).toHaveLength(1);
    expect(after.audit).toHaveLength(1);
  });

  it("refuses after the window and after activation, says why, and changes nothing", async () => {
    const late = await customer();
    const eightDaysAgo = new Date(Date.now() - 8 * DAY_MS);
    await app.services.db
      .update(subscriptions)
      .set({ createdAt: eightDaysAgo })
      .where(eq(subscriptions.id, late.subscription.id));
    const before = await stateOf(app, late.subscription.id);
    const refused = await refund(app, late.subscription.id, late.cookie);
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toMatch(/^The 7-day guarantee of this purchase ended on /);
    expect(await stateOf(app, late.subscription.id)).toEqual(before);
    const latePage = await (await app.request("/account", { headers: { cookie: late.cookie } })).text();
    expect(latePage).not.toContain("Refund this purchase");
    expect(latePage).toContain("The 7-day guarantee of this purchase ended on");
    expect(latePage).toContain('href="/contact"');

    const used = await customer("unlock");
    await app.services.db
      .update(devices)
      .set({ activatedAt: new Date(), activatedVia: "download" })
      .where(eq(devices.subscriptionId, used.subscription.id));
    const usedBefore = await stateOf(app, used.subscription.id);
    const usedRefused = await refund(app, used.subscription.id, used.cookie);
    expect(usedRefused.status).toBe(409);
    expect((await usedRefused.json()).message).toMatch(/first used on .* 72 hours/);
    expect(await stateOf(app, used.subscription.id)).toEqual(usedBefore);
  });

  it("answers someone else's plan like an unknown one, and anonymous or staff callers 401; nothing changes", async () => {
    const owner = await customer();
    const other = await customer("unlock");
    const staff = await createAccount(app, STAFF_EMAIL);
    const before = await stateOf(app, owner.subscription.id);
    const foreign = await refund(app, owner.subscription.id, other.cookie);
    expect(foreign.status).toBe(404);
    const unknown = await refund(app, "00000000-0000-4000-8000-000000000000", other.cookie);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect((await refund(app, owner.subscription.id)).status).toBe(401);
    expect((await refund(app, owner.subscription.id, staff.cookie)).status).toBe(401);
    expect((await refund(app, "not-a-uuid", owner.cookie)).status).toBe(400);
    // The page's form: someone else's plan is refused the same way; signed out, nothing is posted.
    const form = (cookie: string) =>
      app.request("/account", {
        method: "POST",
        body: new URLSearchParams({ intent: "refund", subscriptionId: owner.subscription.id }),
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        redirect: "manual",
      });
    expect((await form(other.cookie)).status).toBe(404);
    const signedOut = await form("");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toBe("/account");
    expect(await stateOf(app, owner.subscription.id)).toEqual(before);
  });

  it("refunds from the page's form without JavaScript: back to /account with the notice", async () => {
    const buyer = await customer("unlock");
    const confirm = await (
      await app.request(`/account?refund=${buyer.subscription.id}`, { headers: { cookie: buyer.cookie } })
    ).text();
    expect(confirm).toContain("Yes, refund $9.99");
    const posted = await app.request("/account", {
      method: "POST",
      body: new URLSearchParams({ intent: "refund", subscriptionId: buyer.subscription.id }),
      headers: { cookie: buyer.cookie, "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(posted.status).toBe(302);
    expect(posted.headers.get("location")).toBe("/account");
    expect((await stateOf(app, buyer.subscription.id)).subscription!.status).toBe("refunded");
  });
});

describe.each(databaseKinds)("the 7-day guarantee on a Stripe store, on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind }));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  it("asks Stripe to refund the purchase's payment and cancel its subscription, records it once, and Stripe's event adds nothing", async () => {
    const email = "stripe-guarantee@example.com";
    const { sessionId } = await startCheckout(app, "pro-monthly", email);
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    const subscription = await subscriptionOfSession(app, sessionId);
    const cookie = await signedInCustomer(app, email);
    const firstIntent = standIn.invoicePaymentIntentOf(paid.subscription!);

    const response = await refund(app, subscription.id, cookie);
    expect(response.status, await response.clone().text()).toBe(200);
    const [call, ...more] = standIn.refunds;
    expect(more).toEqual([]);
    expect(call!.params.get("payment_intent")).toBe(firstIntent);
    expect(call!.params.get("amount")).toBe("799");
    expect(call!.params.get("reason")).toBe("requested_by_customer");
    expect(call!.idempotencyKey).toMatch(/^guarantee-refund-[0-9a-f-]+-799$/);
    expect(standIn.subscriptionCancels.map((cancel) => cancel.id)).toEqual([paid.subscription]);

    const after = await stateOf(app, subscription.id);
    expect(after.subscription!.status).toBe("refunded");
    expect(after.ledger.filter((row) => row.kind === "refund").map((row) => row.amountCents)).toEqual([799]);
    expect(after.audit.map((entry) => [entry.actor, entry.staffEmail])).toEqual([["customer", email]]);
    expect(after.emails.filter((mail) => mail === "subscription-refunded")).toHaveLength(1);

    // Stripe's own event for that refund meets it on one ledger key: nothing more recorded or told.
    await deliverStripeEvent(app, "charge.refunded", {
      id: `ch_${firstIntent.slice(3)}`,
      object: "charge",
      amount: 799,
      amount_refunded: 799,
      currency: "usd",
      refunded: true,
      customer: paid.customer,
      payment_intent: firstIntent,
    });
    const settled = await stateOf(app, subscription.id);
    expect(settled.ledger).toEqual(after.ledger);
    expect(settled.emails).toEqual(after.emails);

    // Twice: refused before Stripe is asked again.
    expect((await refund(app, subscription.id, cookie)).status).toBe(409);
    expect(standIn.refunds).toHaveLength(1);
    const [latest] = await app.services.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.subscriptionId, subscription.id))
      .orderBy(desc(ledgerEntries.occurredAt));
    expect(latest!.kind).toBe("refund");
  });

  it("refunds a pass once when two requests race: Stripe answers both from one key, the row lock records one", async () => {
    const email = "stripe-guarantee-race@example.com";
    const { sessionId } = await startCheckout(app, "unlock", email);
    const paid = standIn.markPaid(sessionId);
    expect((await verify(app, { sessionId })).status).toBe(200);
    const subscription = await subscriptionOfSession(app, sessionId);
    const cookie = await signedInCustomer(app, email);
    const calls = standIn.refunds.length;

    const answers = await Promise.all([
      refund(app, subscription.id, cookie),
      refund(app, subscription.id, cookie),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    // However many calls reached Stripe, one payment was refunded once.
    expect(standIn.refunds.length - calls).toBeGreaterThanOrEqual(1);
    expect(new Set(standIn.refunds.slice(calls).map((call) => call.idempotencyKey)).size).toBe(1);
    expect(standIn.refundedOf(paid.payment_intent!)).toBe(999);
    const after = await stateOf(app, subscription.id);
    expect(after.ledger.filter((row) => row.kind === "refund").map((row) => row.amountCents)).toEqual([999]);
    expect(after.emails.filter((mail) => mail === "subscription-refunded")).toHaveLength(1);
    expect(after.audit).toHaveLength(1);
  });
});
