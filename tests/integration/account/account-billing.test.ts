// The account page's billing actions (decision 071): cancel at period end, resume (each e-mailed),
// and the payment-method link, which without Stripe is the customer's own payment history
// (decision 103) with a plain receipt per order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

describe.each(databaseKinds)("the customer's billing actions, on %s", (kind) => {
  let app: TestApp;
  let ada: string;
  let bola: string;

  async function onlySubscription(cookie: string): Promise<AccountSubscription> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    const { subscriptions } = (await response.json()) as { subscriptions: AccountSubscription[] };
    expect(subscriptions).toHaveLength(1);
    return subscriptions[0]!;
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    await buy(app, "pro-monthly", "ada@example.com");
    await buy(app, "unlock", "bola@example.com");
    ada = await signedInCustomer(app, "ada@example.com");
    bola = await signedInCustomer(app, "bola@example.com");
  });
  afterAll(async () => {
    await app?.close();
  });

  it("cancels a renewing plan at period end and resumes it before the end", async () => {
    const { id: subscriptionId, expiresAt } = await onlySubscription(ada);
    const cancel = await accountRequest(app, "subscriptions/cancel", { subscriptionId }, ada);
    expect(cancel.status).toBe(200);
    expect(await onlySubscription(ada)).toMatchObject({ status: "cancels", expiresAt, usable: true });

    const resume = await accountRequest(app, "subscriptions/resume", { subscriptionId }, ada);
    expect(resume.status).toBe(200);
    expect(await onlySubscription(ada)).toMatchObject({ status: "active", expiresAt });

    // Each change is e-mailed once; resuming again changes nothing and sends nothing.
    expect((await accountRequest(app, "subscriptions/resume", { subscriptionId }, ada)).status).toBe(200);
    const kinds = (await queuedEmails(app, "ada@example.com")).map((mail) => mail.kind);
    expect(kinds.filter((kind) => kind === "subscription-cancelled")).toHaveLength(1);
    expect(kinds.filter((kind) => kind === "subscription-resumed")).toHaveLength(1);
    const resumed = (await queuedEmails(app, "ada@example.com")).find(
      (mail) => mail.kind === "subscription-resumed",
    )!;
    expect(resumed.subject).toContain("renews again");
    expect(resumed.text).toContain(findPlan("pro-monthly")!.price);
  });

  it("refuses to cancel a one-time pass, which just shows its end", async () => {
    const { id: subscriptionId } = await onlySubscription(bola);
    const cancel = await accountRequest(app, "subscriptions/cancel", { subscriptionId }, bola);
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ error: "Plan does not renew" });
    expect(await onlySubscription(bola)).toMatchObject({ status: "active" });
  });

  it("sends the payment-method link to the customer's own payment history, with each payment, refund and receipt", async () => {
    const { id: subscriptionId } = await onlySubscription(ada);
    const billing = await accountRequest(app, "subscriptions/billing", { subscriptionId }, ada);
    expect(billing.status).toBe(200);
    const { url } = (await billing.json()) as { url: string };
    expect(url).toBe("/account/billing");

    const page = await app.request(url, { headers: { cookie: ada } });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toContain("no-store");
    const html = await page.text();
    expect(html).toContain("Payments and invoices");
    expect(html).toContain(orderNumberOf(subscriptionId));
    expect(html).toContain(findPlan("pro-monthly")!.name);
    expect(html).toContain(findPlan("pro-monthly")!.price);
    expect(html).toContain(">Paid<");
    expect(html).toContain(`/account/receipts/${subscriptionId}`);
    // Another customer's order never shows: not in the history, not as a receipt.
    const { id: bolasId } = await onlySubscription(bola);
    expect(html).not.toContain(orderNumberOf(bolasId));
    expect(html).not.toContain(findPlan("unlock")!.name);
    const bolasPage = await (await app.request(url, { headers: { cookie: bola } })).text();
    expect(bolasPage).toContain(orderNumberOf(bolasId));
    expect(bolasPage).not.toContain(orderNumberOf(subscriptionId));

    const receiptPage = await app.request(`/account/receipts/${subscriptionId}`, {
      headers: { cookie: ada },
    });
    expect(receiptPage.status).toBe(200);
    const receiptHtml = await receiptPage.text();
    expect(receiptHtml).toContain(orderNumberOf(subscriptionId));
    expect(receiptHtml).toContain("ada@example.com");
    const receipt = `/account/receipts/${subscriptionId}`;
    expect((await app.request(receipt, { headers: { cookie: bola } })).status).toBe(404);
    expect((await app.request("/account/receipts/not-a-uuid", { headers: { cookie: ada } })).status).toBe(
      404,
    );
    // A staff session is not a customer session (decision 067): no history, no receipt, no billing action.
    const staff = await createAccount(app, STAFF_EMAIL);
    for (const path of [url, receipt]) {
      const asStaff = await app.request(path, { headers: { cookie: staff.cookie }, redirect: "manual" });
      expect(asStaff.status, path).toBe(302);
      expect(asStaff.headers.get("location")).toBe("/account");
      const signedOut = await app.request(path, { redirect: "manual" });
      expect(signedOut.status, path).toBe(302);
      expect(signedOut.headers.get("location")).toBe("/account");
    }
    for (const path of ["subscriptions/cancel", "subscriptions/resume", "subscriptions/billing"])
      expect((await accountRequest(app, path, { subscriptionId }, staff.cookie)).status, path).toBe(401);

    // A refund staff made shows as its own line, and the payment it took back as refunded.
    const refunded = await app.request("/api/admin/subscriptions/refund", {
      json: { subscriptionId, reason: "customer asked" },
      headers: { cookie: staff.cookie },
    });
    expect(refunded.status).toBe(200);
    const after = await (await app.request(url, { headers: { cookie: ada } })).text();
    expect(after).toContain(">Refund<");
    expect(after).toContain(">Refunded<");
    expect(after).toContain(`−${findPlan("pro-monthly")!.price}`);
    expect(after).not.toContain(">Paid<");
    expect(after).not.toContain(orderNumberOf(bolasId));
  });
});
