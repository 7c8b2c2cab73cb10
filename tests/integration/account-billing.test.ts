// The account page's billing actions (decision 071): cancel at period end, resume, and the
// payment-method link, which without Stripe is the plain receipt page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#app/lib/plans.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { databaseKinds } from "../support/database.ts";
import { accountRequest, buy, signedInCustomer } from "../support/account.ts";
import { createAccount, STAFF_EMAIL } from "./admin-helpers.ts";

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
  });

  it("refuses to cancel a one-time pass, which just shows its end", async () => {
    const { id: subscriptionId } = await onlySubscription(bola);
    const cancel = await accountRequest(app, "subscriptions/cancel", { subscriptionId }, bola);
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ error: "Plan does not renew" });
    expect(await onlySubscription(bola)).toMatchObject({ status: "active" });
  });

  it("sends the payment-method link to the receipt page without Stripe, and shows the receipt to its owner only", async () => {
    const { id: subscriptionId } = await onlySubscription(ada);
    const billing = await accountRequest(app, "subscriptions/billing", { subscriptionId }, ada);
    expect(billing.status).toBe(200);
    const { url } = (await billing.json()) as { url: string };
    expect(url).toBe(`/account/receipts/${subscriptionId}`);

    const page = await app.request(url, { headers: { cookie: ada } });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toContain("no-store");
    const html = await page.text();
    expect(html).toContain(orderNumberOf(subscriptionId));
    expect(html).toContain(findPlan("pro-monthly")!.name);
    expect(html).toContain("ada@example.com");

    expect((await app.request(url, { headers: { cookie: bola } })).status).toBe(404);
    expect((await app.request("/account/receipts/not-a-uuid", { headers: { cookie: ada } })).status).toBe(
      404,
    );
    // A staff session is not a customer session (decision 067): no receipt, no billing action.
    const staff = await createAccount(app, STAFF_EMAIL);
    const asStaff = await app.request(url, { headers: { cookie: staff.cookie }, redirect: "manual" });
    expect(asStaff.status).toBe(302);
    expect(asStaff.headers.get("location")).toBe("/account");
    for (const path of ["subscriptions/cancel", "subscriptions/resume", "subscriptions/billing"])
      expect((await accountRequest(app, path, { subscriptionId }, staff.cookie)).status, path).toBe(401);
    const signedOut = await app.request(url, { redirect: "manual" });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toBe("/account");
  });
});
