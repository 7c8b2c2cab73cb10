// Reconciliation (issue 34, decision 124): the ledger against Stripe's charges, refunds and
// disputes of the last 35 days, through the SDK's auto-pagination against the stand-in. A
// matched store reports nothing; a refund Stripe has and the books lack, and a charge whose
// amount differs, are each stored once and alerted once across two runs; a fixed difference
// resolves; `npm run doctor` prints the same, and /admin shows it.
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconciliationFindings, reconciliationRuns } from "#server/db/schema/index.ts";
import { recordMoney, type MoneyMovement } from "#server/domain/billing/ledger.ts";
import { reconcileWithStripe, reconciliationStatus } from "#server/domain/billing/reconciliation.ts";
import { formatCheck } from "#server/domain/ops/doctor/check.ts";
import { storeChecks } from "#server/domain/ops/doctor/store.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, queuedEmails } from "../../support/staff.ts";
import {
  createStripeTestApp,
  type StandInListedObject,
  type StripeStandIn,
} from "../../support/stripe-stand-in.ts";

const DAY_MS = 86_400_000;
const OWNER = "owner@naijalink.example";
const LIVE = {
  NAIJALINK_MODE: "live",
  PUBLIC_URL: "https://naijalink.example",
  SMTP_URL: "smtp://mail.naijalink.example:587",
  STAFF_ADMINS: OWNER,
  // This test is about money, not sign-in.
  STAFF_REQUIRE_TOTP: "false",
};
/** Enough paid passes that Stripe's charges take two pages of 100. */
const PASSES = 104;

describe.each(databaseKinds)("reconciliation of the ledger with Stripe on %s", (kind) => {
  let app: TestApp;
  let standIn: StripeStandIn;
  let staffCookie: string;
  const now = new Date();
  const seconds = (daysAgo: number) => Math.floor((now.getTime() - daysAgo * DAY_MS) / 1000);
  const at = (daysAgo: number) => new Date(seconds(daysAgo) * 1000);
  const charge = (id: string, amount: number, daysAgo: number, extra: object = {}): StandInListedObject => ({
    id,
    object: "charge",
    created: seconds(daysAgo),
    amount,
    amount_refunded: 0,
    currency: "usd",
    status: "succeeded",
    paid: true,
    payment_intent: `pi_${id.slice(3)}`,
    customer: null,
    billing_details: { email: null },
    ...extra,
  });
  const book = (movement: Omit<MoneyMovement, "subscriptionId" | "provider">) =>
    recordMoney(app.services.db, { subscriptionId: null, provider: "stripe", ...movement });

  const run = (when: Date) => reconcileWithStripe(app.services, when);
  const findings = () =>
    app.services.db
      .select()
      .from(reconciliationFindings)
      .orderBy(asc(reconciliationFindings.firstSeenAt), asc(reconciliationFindings.key));
  const alerts = async () =>
    (await queuedEmails(app, OWNER)).filter((email) => email.subject.startsWith("The books differ"));
  const doctorLines = async (when: Date) =>
    (await storeChecks(app.services.db, app.services.dbKind, app.config, when, { reconcile: true }))
      .map(formatCheck)
      .filter((line) => line.slice(2).startsWith("books:"));
  const dashboard = async () => {
    const response = await app.request("/admin", { headers: { cookie: staffCookie } });
    expect(response.status).toBe(200);
    return (await response.text()).replace(/<!-- -->/g, "");
  };

  beforeAll(async () => {
    ({ app, standIn } = await createStripeTestApp({ kind, env: LIVE }));
    staffCookie = (await createAccount(app, OWNER)).cookie;
    const { listed } = standIn;
    // A pass bought at checkout (its payment intent), refunded in part.
    listed.charges.push(charge("ch_pass", 1500, 3, { amount_refunded: 500 }));
    listed.refunds.push({
      id: "re_first",
      object: "refund",
      created: seconds(2),
      amount: 500,
      currency: "usd",
      status: "succeeded",
      charge: "ch_pass",
      payment_intent: "pi_pass",
    });
    await book({
      key: "charge:checkout:cs_pass",
      kind: "charge",
      purpose: "purchase",
      amountCents: 1500,
      currency: "usd",
      providerReference: "pi_pass",
      occurredAt: at(3),
    });
    await book({
      key: "refund:ch_pass:500",
      kind: "refund",
      orderNumber: "AAAA-0000-0001",
      amountCents: 500,
      currency: "usd",
      providerReference: "ch_pass",
      occurredAt: at(2),
    });
    // A subscription's first payment (recorded by its subscription) and a renewal (its invoice).
    listed.charges.push(charge("ch_first", 1999, 10), charge("ch_renewal", 1099, 5));
    const invoice = (id: string, intent: string, reason: string, daysAgo: number) => ({
      id,
      object: "invoice",
      created: seconds(daysAgo),
      status: "paid",
      billing_reason: reason,
      parent: { type: "subscription_details", subscription_details: { subscription: "sub_plan" } },
      payments: {
        object: "list",
        has_more: false,
        data: [{ id: `inpay_${id}`, object: "invoice_payment", payment: { payment_intent: intent } }],
      },
    });
    listed.invoices.push(
      invoice("in_first", "pi_first", "subscription_create", 10),
      invoice("in_renewal", "pi_renewal", "subscription_cycle", 5),
    );
    await book({
      key: "charge:checkout:cs_plan",
      kind: "charge",
      purpose: "purchase",
      amountCents: 1999,
      currency: "usd",
      providerReference: "sub_plan",
      occurredAt: at(10),
    });
    await book({
      key: "charge:invoice:in_renewal",
      kind: "charge",
      purpose: "renewal",
      amountCents: 1099,
      currency: "usd",
      providerReference: "in_renewal",
      occurredAt: at(5),
    });
    // A dispute of the first payment.
    listed.disputes.push({
      id: "dp_first",
      object: "dispute",
      created: seconds(4),
      amount: 1999,
      currency: "usd",
      status: "needs_response",
      charge: "ch_first",
      payment_intent: "pi_first",
    });
    await book({
      key: "dispute:dp_first",
      kind: "dispute",
      amountCents: 1999,
      currency: "usd",
      providerReference: "dp_first",
      occurredAt: at(4),
    });
    // Many passes, each in the books: two pages of charges.
    for (let index = 0; index < PASSES; index++) {
      listed.charges.push(charge(`ch_many${index}`, 700, 20));
      await book({
        key: `charge:checkout:cs_many${index}`,
        kind: "charge",
        purpose: "purchase",
        amountCents: 700,
        currency: "usd",
        providerReference: `pi_many${index}`,
        occurredAt: at(20),
      });
    }
    // Older than 35 days: neither listed nor reported, though the books never had it.
    listed.charges.push(charge("ch_old", 900, 40));
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });

  it("a matched store reports nothing: no finding, no alert, ✓ on /admin and in the doctor", async () => {
    expect(await run(now)).toEqual({ differences: 0, newDifferences: 0, resolved: 0 });
    expect(await findings()).toEqual([]);
    expect(await alerts()).toEqual([]);
    // Every list asked from 36 days back (the window and a day's margin), charges over two pages.
    const from = String(Math.floor((now.getTime() - 36 * DAY_MS) / 1000));
    const paths = standIn.listRequests.map((request) => request.path);
    expect(new Set(paths)).toEqual(new Set(["/v1/charges", "/v1/refunds", "/v1/disputes", "/v1/invoices"]));
    expect(standIn.listRequests.every((request) => request.query.get("created[gte]") === from)).toBe(true);
    const chargePages = standIn.listRequests.filter((request) => request.path === "/v1/charges");
    expect(chargePages.map((request) => request.query.get("starting_after"))).toEqual([
      null,
      expect.stringMatching(/^ch_many/),
    ]);

    expect(await doctorLines(now)).toEqual([
      `✓ books: the ledger matches Stripe's charges, refunds and disputes since ${new Date(now.getTime() - 35 * DAY_MS).toISOString().slice(0, 10)} (${PASSES + 5} in Stripe, ${PASSES + 5} ledger rows)`,
    ]);
    expect(await dashboard()).toContain("✓ The books match Stripe as of");
  });

  it("a refund missing from the books and a changed amount: each stored and alerted once over two runs, then a fixed one resolves", async () => {
    // Stripe refunded more of the pass (its webhook never arrived) and the renewal was 9.99, not 10.99.
    standIn.listed.refunds.push({
      id: "re_second",
      object: "refund",
      created: seconds(1),
      amount: 300,
      currency: "usd",
      status: "succeeded",
      charge: "ch_pass",
      payment_intent: "pi_pass",
    });
    standIn.listed.charges.find((entry) => entry.id === "ch_pass")!.amount_refunded = 800;
    standIn.listed.charges.find((entry) => entry.id === "ch_renewal")!.amount = 999;

    const first = new Date(now.getTime() + 60_000);
    expect(await run(first)).toEqual({ differences: 2, newDifferences: 2, resolved: 0 });
    const second = new Date(now.getTime() + 120_000);
    expect(await run(second)).toEqual({ differences: 2, newDifferences: 0, resolved: 0 });

    const rows = await findings();
    expect(rows.map((row) => [row.key, row.kind, row.firstSeenAt, row.lastSeenAt, row.resolvedAt])).toEqual([
      ["charge-amount:ch_renewal", "amount_differs", first, second, null],
      ["refund-missing:re_second", "missing_from_ledger", first, second, null],
    ]);
    const renewal = rows[0]!;
    expect([renewal.ledgerCents, renewal.stripeCents, renewal.stripeId]).toEqual([1099, 999, "ch_renewal"]);
    const refund = rows[1]!;
    expect([refund.ledgerCents, refund.stripeCents, refund.orderNumber]).toEqual([
      null,
      300,
      "AAAA-0000-0001",
    ]);
    expect(refund.detail).toBe(
      `refund re_second in Stripe (3.00 USD of charge ch_pass, ${at(1).toISOString().slice(0, 10)}) is not in the books`,
    );

    // One alert over both runs, naming each difference once.
    const sent = await alerts();
    expect(sent.map((email) => email.subject)).toEqual(["The books differ from Stripe in 2 new places"]);
    expect(sent[0]!.text.split("refund re_second in Stripe").length - 1).toBe(1);
    expect(sent[0]!.text.split("charge ch_renewal (order").length - 1).toBe(1);

    expect(await doctorLines(second)).toEqual([
      `✗ books: ${renewal.detail} — fix: ${renewal.fix}`,
      `✗ books: ${refund.detail} — fix: ${refund.fix}`,
    ]);
    const page = await dashboard();
    expect(page).toContain("2 difference(s) between the books and Stripe");
    expect(page).toContain(refund.detail);
    expect(page).toContain(renewal.detail.replace(/&/g, "&amp;"));
    expect(page).not.toContain("The books match Stripe");

    // The refund's event arrives after all: the books catch up and the next run resolves it.
    await book({
      key: "refund:ch_pass:800",
      kind: "refund",
      orderNumber: "AAAA-0000-0001",
      amountCents: 300,
      currency: "usd",
      providerReference: "ch_pass",
      occurredAt: at(0),
    });
    const third = new Date(now.getTime() + 180_000);
    expect(await run(third)).toEqual({ differences: 1, newDifferences: 0, resolved: 1 });
    const after = await findings();
    expect(after.map((row) => [row.key, row.resolvedAt])).toEqual([
      ["charge-amount:ch_renewal", null],
      ["refund-missing:re_second", third],
    ]);
    expect(await alerts()).toHaveLength(1);
    const status = await reconciliationStatus(app.services.db, app.config);
    expect(status.open.map((finding) => finding.key)).toEqual(["charge-amount:ch_renewal"]);
    expect(status.lastRun?.ranAt).toEqual(third);
    expect(
      await app.services.db.select().from(reconciliationRuns).where(eq(reconciliationRuns.ranAt, third)),
    ).toHaveLength(1);
  });

  it("a demo store has nothing to reconcile", async () => {
    expect(await reconciliationStatus(app.services.db, { NAIJALINK_MODE: "demo" })).toEqual({
      live: false,
      lastRun: null,
      open: [],
    });
  });
});
