// The books agree in a real browser (issue 34, decision 120): an Unlock Pass given 7 more days on
// /account, and Pro Monthly changed to Basic (a credit) then to Pro Yearly, each bought and paid
// through the built-in checkout. For each, the receipt e-mails, /account/billing, the console's
// order search and subscription page, the dashboard's revenue and the ledger CSV export name the
// same orders and the same amounts, to the cent: the amounts the plan catalogue and the proration
// rule give at the moments the ledger recorded. The pass's extension never shows Configuration
// Pending and never alerts staff.
import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan, type Plan } from "#core/plans.ts";
import { ledgerEntries, outboxMessages, subscriptions, type LedgerEntry } from "#server/db/schema/index.ts";
import { FULFILMENT_GRACE_MS, awaitingConfiguration } from "#server/domain/billing/waiting-buyers.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { signUpAndConfirm, STAFF_EMAIL } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { buyUntilCheckout, expectToast, open, payOnCheckout } from "../support/purchase-browser.ts";

const DAY_MS = 86_400_000;
const CARD = "4242 4242 4242 4242";
const plan = (id: string): Plan => findPlan(id)!;

/** One movement of money as every view should show it: its order, what it was, signed cents. */
interface Movement {
  email: string;
  subscriptionId: string;
  orderNumber: string;
  /** As the billing page and the console word it, e.g. "Credit: plan change". */
  what: string;
  kind: LedgerEntry["kind"];
  /** Positive in, negative out. */
  cents: number;
}

/** "$9.99", "−$3.00", "$1,234.56" → signed cents. */
function cents(text: string): number {
  const match = /^([−-])?\$([\d,]+)\.(\d\d)$/.exec(text.trim());
  if (!match) throw new Error(`not an amount in dollars: ${JSON.stringify(text)}`);
  const value = Number(match[2]!.replace(/,/g, "")) * 100 + Number(match[3]);
  return match[1] ? -value : value;
}

/**
 * Stripe's proration, as the store promises it (docs/product.md): the unused share of the paid
 * period, to the second, is credited at the old price and charged at the new one.
 */
function unusedShare(periodEndsAt: Date, at: Date, from: Plan): number {
  return Math.min(1, Math.max(0, (periodEndsAt.getTime() - at.getTime()) / (from.accessDays * DAY_MS)));
}

/** The text part of an .eml file (quoted-printable, base64 or plain), decoded as UTF-8. */
function textOfEml(raw: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const part = parts.find((candidate) => /Content-Type: text\/plain/i.test(candidate)) ?? parts[0]!;
  const split = part.search(/\r?\n\r?\n/);
  const headers = part.slice(0, split);
  const body = part.slice(split).trim();
  const encoding = /Content-Transfer-Encoding: ([\w-]+)/i.exec(headers)?.[1]?.toLowerCase();
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8");
  if (encoding !== "quoted-printable") return body;
  const bytes: number[] = [];
  const soft = body.replace(/=\r?\n/g, "");
  for (let index = 0; index < soft.length; index++) {
    const hex = soft[index] === "=" ? /^[0-9A-F]{2}/i.exec(soft.slice(index + 1, index + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      index += 2;
    } else bytes.push(...Buffer.from(soft[index]!, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A CSV's rows as records by header (RFC 4180 quoting). */
function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (quoted && char === '"' && body[index + 1] === '"') {
      cell += '"';
      index++;
    } else if (char === '"') quoted = !quoted;
    else if (quoted) cell += char;
    else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && body[index + 1] === "\n") index++;
      rows.push([...row, cell]);
      row = [];
      cell = "";
    } else cell += char;
  }
  if (cell || row.length) rows.push([...row, cell]);
  const [header, ...lines] = rows;
  return lines.map((line) => Object.fromEntries(header!.map((name, index) => [name, line[index] ?? ""])));
}

const byOrder = (a: { orderNumber: string; what: string }, b: { orderNumber: string; what: string }) =>
  `${a.orderNumber}${a.what}`.localeCompare(`${b.orderNumber}${b.what}`);
const view = (movements: Movement[]) =>
  movements
    .map(({ orderNumber, what, cents: amount }) => ({ orderNumber, what, cents: amount }))
    .sort(byOrder);

describe("the books agree in a browser", () => {
  const app = useBrowserApp({ ownUrl: true });
  const contexts: BrowserContext[] = [];
  let staff: Page;
  /** Every movement of money the store should have recorded so far, from the catalogue. */
  const store: Movement[] = [];

  beforeAll(async () => {
    const context = await app.browser.newContext({ acceptDownloads: true });
    contexts.push(context);
    staff = await context.newPage();
    await signUpAndConfirm(staff, app.server, STAFF_EMAIL);
    await staff.waitForURL(`${app.server.url}/admin/blog`);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  /** A browser that notes every "Configuration Pending" any of its pages ever shows. */
  async function buyerBrowser() {
    const context = await app.browser.newContext();
    contexts.push(context);
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { pendingSeen: string[] }).pendingSeen = seen;
      new MutationObserver(() => {
        if (document.body?.innerText.includes("Configuration Pending")) seen.push(location.href);
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    const visited: string[] = [];
    return { context, visited };
  }
  const pendingSeen = (page: Page) =>
    page.evaluate(() => (window as unknown as { pendingSeen?: string[] }).pendingSeen ?? []);

  /** Buys `planId` through the checkout, then signs in to /account by the e-mailed link. */
  async function boughtAndSignedIn(planId: string, email: string) {
    const { context, visited } = await buyerBrowser();
    const page = await context.newPage();
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) visited.push(frame.url());
    });
    await buyUntilCheckout(page, app.server.url, plan(planId), email);
    await payOnCheckout(page, CARD);
    await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await expectToast(page, "Payment Successful");
    await open(page, `${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").waitFor();
    await open(page, await signInLinkFromOutboxFiles(app.server.dataDir, email));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    await waitForHydration(page);
    const [subscription] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, email));
    return { page, visited, subscription: subscription! };
  }

  const ledgerOf = async (subscriptionId: string) =>
    (await app.server.services.db.select().from(ledgerEntries)).filter(
      (row) => row.subscriptionId === subscriptionId,
    );
  /** The one ledger row of this kind and purpose: the test fails when it is missing or doubled. */
  function rowOf(rows: LedgerEntry[], kind: LedgerEntry["kind"], purpose: LedgerEntry["purpose"]) {
    const found = rows.filter((row) => row.kind === kind && row.purpose === purpose);
    expect(found.map((row) => `${row.kind}:${row.purpose}`)).toEqual([`${kind}:${purpose}`]);
    return found[0]!;
  }

  /** The receipt e-mails the mail worker wrote to `email`: order number and amount of each. */
  async function receiptFiles(email: string) {
    const outbox = path.join(app.server.dataDir, "outbox");
    const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
      name.endsWith(".eml"),
    );
    const mails = await Promise.all(
      names.map(async (name) => {
        const raw = await fs.readFile(path.join(outbox, name), "utf8");
        return { kind: name.slice(25, -41), to: /^To: (.+)$/m.exec(raw)?.[1]?.trim(), text: textOfEml(raw) };
      }),
    );
    return mails.filter((mail) => mail.to === email);
  }
  async function receiptsTo(email: string, expected: number) {
    await expect
      .poll(async () => (await receiptFiles(email)).filter((mail) => mail.kind === "receipt").length, {
        timeout: 15_000,
      })
      .toBe(expected);
    return (await receiptFiles(email))
      .filter((mail) => mail.kind === "receipt")
      .map((mail) => ({
        orderNumber: /Order number: (\S+)/.exec(mail.text)?.[1],
        cents: cents(/Amount paid: (\S+)/.exec(mail.text)?.[1] ?? ""),
      }));
  }

  /** /account/billing as the buyer sees it: order, what, signed amount of each row. */
  async function billingRows(page: Page) {
    await open(page, `${app.server.url}/account/billing`);
    const rows = await page.getByTestId("billing-history").locator("tbody tr").all();
    return Promise.all(
      rows.map(async (row) => {
        const [, what, , amount, , orderNumber] = await row.locator("td").allInnerTexts();
        return { orderNumber: orderNumber!.trim(), what: what!.trim(), cents: cents(amount!) };
      }),
    );
  }

  /** The console's order search for `orderNumber`: the one order it finds. */
  async function searchOrder(orderNumber: string) {
    await open(
      staff,
      `${app.server.url}/admin/orders?${new URLSearchParams({ status: "all", q: orderNumber })}`,
    );
    await staff.getByText(`1 result for “${orderNumber}”`).waitFor();
    const rows = staff.getByRole("region", { name: "Results" }).locator("tbody tr");
    expect(await rows.count()).toBe(1);
    const [, , planCell, , subscriptionCell] = await rows.first().locator("td").allInnerTexts();
    const link = rows.first().getByRole("link", { name: /subscription of / });
    return {
      plan: planCell!,
      subscription: subscriptionCell!,
      href: await link.getAttribute("href"),
    };
  }

  /** The Payments table of the console's subscription page. */
  async function consolePayments(subscriptionId: string) {
    await open(staff, `${app.server.url}/admin/subscriptions/${subscriptionId}`);
    const rows = await staff.getByRole("region", { name: "Payments", exact: true }).locator("tbody tr").all();
    return Promise.all(
      rows.map(async (row) => {
        const [, what, orderNumber, amount] = await row.locator("td").allInnerTexts();
        return { orderNumber: orderNumber!.trim(), what: what!.trim(), cents: cents(amount!) };
      }),
    );
  }

  /** The dashboard's last-30-days figures and the Configuration Pending count, read off the page. */
  async function dashboard() {
    await open(staff, `${app.server.url}/admin`);
    const figure = async (label: string) =>
      (
        await staff
          .getByRole("row", { name: new RegExp(`^${label}`) })
          .getByRole("cell")
          .nth(2)
          .innerText()
      ).trim();
    return {
      paidOrders: Number(await figure("Paid orders")),
      gross: cents(await figure("Gross revenue \\(USD\\)")),
      credited: cents(await figure("Credited \\(USD\\)")),
      refunded: cents(await figure("Refunded \\(USD\\)")),
      net: cents(await figure("Net revenue \\(USD\\)")),
      configurationPending: (
        await staff
          .locator(
            "xpath=//dt[normalize-space()='Waiting at Configuration Pending']/following-sibling::dd[1]",
          )
          .innerText()
      ).trim(),
    };
  }

  /** The ledger CSV as the console's export downloads it, from the first recorded day to today. */
  async function ledgerCsv() {
    await open(staff, `${app.server.url}/admin/orders`);
    const form = staff.getByRole("form", { name: "Export ledger as CSV" });
    const [first] = (await app.server.services.db.select().from(ledgerEntries))
      .map((row) => row.occurredAt.toISOString().slice(0, 10))
      .sort();
    if (first) await form.getByLabel("From").fill(first);
    const [download] = await Promise.all([
      staff.waitForEvent("download", { timeout: 15_000 }),
      form.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^naijalink-ledger-.*\.csv$/);
    return parseCsv(await fs.readFile((await download.path())!, "utf8"));
  }

  /** Every view agrees with the movements expected of `buyer`, and the store-wide ones with `store`. */
  async function expectBooksAgree(buyer: { page: Page; email: string; subscriptionId: string }) {
    const mine = store.filter((movement) => movement.subscriptionId === buyer.subscriptionId);
    const charges = mine.filter((movement) => movement.kind === "charge");

    // The ledger itself holds exactly the movements the catalogue says, store-wide.
    const rows = await app.server.services.db.select().from(ledgerEntries);
    const sign = { charge: 1, credit: -1, refund: -1, dispute: -1, dispute_won: 1, dispute_lost: 0 };
    expect(rows.map((row) => [row.orderNumber, row.kind, sign[row.kind] * row.amountCents]).sort()).toEqual(
      store.map((movement) => [movement.orderNumber, movement.kind, movement.cents]).sort(),
    );

    // One receipt per charge, with its own order number and amount; none for a credit.
    expect(
      (await receiptsTo(buyer.email, charges.length)).sort((a, b) =>
        a.orderNumber!.localeCompare(b.orderNumber!),
      ),
    ).toEqual(
      charges
        .map(({ orderNumber, cents: amount }) => ({ orderNumber, cents: amount }))
        .sort((a, b) => a.orderNumber.localeCompare(b.orderNumber)),
    );

    // The buyer's billing page and the console's subscription page list the same rows.
    expect((await billingRows(buyer.page)).sort(byOrder)).toEqual(view(mine));
    expect((await consolePayments(buyer.subscriptionId)).sort(byOrder)).toEqual(view(mine));

    // Each order number finds the subscription in the console's search.
    for (const { orderNumber } of mine) {
      const found = await searchOrder(orderNumber);
      expect(found.href).toBe(`/admin/subscriptions/${buyer.subscriptionId}`);
    }

    // The ledger export: this buyer's rows, and the whole store's net.
    const csv = await ledgerCsv();
    const signed = (row: Record<string, string>) =>
      ({ in: 1, out: -1, none: 0 })[row.revenue_effect as "in" | "out" | "none"] *
      Math.round(Number(row.amount) * 100);
    expect(
      csv
        .filter((row) => row.subscription_id === buyer.subscriptionId)
        .map((row) => ({ orderNumber: row.order_number!, kind: row.kind, cents: signed(row) }))
        .sort((a, b) => `${a.orderNumber}${a.kind}`.localeCompare(`${b.orderNumber}${b.kind}`)),
    ).toEqual(
      mine
        .map(({ orderNumber, kind, cents: amount }) => ({ orderNumber, kind, cents: amount }))
        .sort((a, b) => `${a.orderNumber}${a.kind}`.localeCompare(`${b.orderNumber}${b.kind}`)),
    );
    const total = (movements: Movement[]) => movements.reduce((sum, movement) => sum + movement.cents, 0);
    expect(csv.reduce((sum, row) => sum + signed(row), 0)).toBe(total(store));

    // The dashboard's revenue: gross is every charge, credited every credit, net what is left.
    const figures = await dashboard();
    expect(figures).toEqual({
      paidOrders: store.filter((movement) => movement.kind === "charge").length,
      gross: total(store.filter((movement) => movement.kind === "charge")),
      credited: store
        .filter((movement) => movement.kind === "credit")
        .reduce((sum, movement) => sum - movement.cents, 0),
      refunded: 0,
      net: total(store),
      configurationPending: "0",
    });
    return { csv, figures };
  }

  it("an Unlock Pass given 7 more days on /account: two orders of the pass's price, in every view, never Configuration Pending", async () => {
    const email = "books-pass@example.com";
    const pass = plan("unlock");
    const { page, visited, subscription } = await boughtAndSignedIn("unlock", email);

    await page.getByRole("button", { name: "Extend or upgrade" }).click();
    await page.getByRole("radio", { name: `Add 7 more days (${pass.price})` }).check();
    await page.getByRole("button", { name: "Review change" }).click();
    const confirmation = page.getByTestId("plan-change-confirmation");
    expect(await confirmation.getByTestId("price-difference").innerText()).toBe(`${pass.price} charged now`);
    const extendingFrom = visited.length;
    await confirmation.getByRole("button", { name: "Continue to payment" }).click();
    await page.waitForURL(/\/checkout\/cs_test_/);
    await waitForHydration(page);
    await payOnCheckout(page, CARD);
    await page.waitForURL(`${app.server.url}/account?plan-change=paid`);
    await waitForHydration(page);
    // Paid for the pass it extends: back on /account, never a success page waiting for a config.
    expect(visited.slice(extendingFrom).filter((url) => url.includes("/payment-success"))).toEqual([]);

    const rows = await ledgerOf(subscription.id);
    const purchase = rowOf(rows, "charge", "purchase");
    const extension = rowOf(rows, "charge", "pass_extension");
    expect(rows).toHaveLength(2);
    store.push(
      {
        email,
        subscriptionId: subscription.id,
        orderNumber: purchase.orderNumber,
        what: "Payment: purchase",
        kind: "charge",
        cents: pass.priceCents,
      },
      {
        email,
        subscriptionId: subscription.id,
        orderNumber: extension.orderNumber,
        what: "Payment: pass extended",
        kind: "charge",
        cents: pass.priceCents,
      },
    );
    await expectBooksAgree({ page, email, subscriptionId: subscription.id });

    // Configuration Pending nowhere: not on any page the buyer saw, not in the buyer's e-mails, not
    // among the buyers waiting even once fulfilment's grace is long past, and no staff alert then.
    expect(await pendingSeen(page)).toEqual([]);
    for (const mail of await receiptFiles(email)) expect(mail.text).not.toContain("Configuration Pending");
    const later = new Date(Date.now() + 2 * FULFILMENT_GRACE_MS);
    expect(await awaitingConfiguration(app.server.services.db, later)).toEqual([]);
    expect(await checkStaffAlerts(app.server.services, later)).toMatchObject({ alertsOpened: 0 });
    expect(
      await app.server.services.db
        .select()
        .from(outboxMessages)
        .where(eq(outboxMessages.kind, "staff-alert")),
    ).toEqual([]);
  });

  it("Pro Monthly → Basic (a credit) → Pro Yearly: the prorated credit and charge, in every view", async () => {
    const email = "books-change@example.com";
    const [proMonthly, basic, proYearly] = [plan("pro-monthly"), plan("basic-monthly"), plan("pro-yearly")];
    const { page, subscription } = await boughtAndSignedIn("pro-monthly", email);
    const periodEndsAt = subscription.expiresAt;

    async function changeTo(target: Plan, difference: RegExp) {
      await page.getByRole("button", { name: "Change plan" }).click();
      await page.getByRole("radio", { name: new RegExp(`^${target.name}`) }).check();
      await page.getByRole("button", { name: "Review change" }).click();
      const confirmation = page.getByTestId("plan-change-confirmation");
      await confirmation.waitFor();
      const quoted = await confirmation.getByTestId("price-difference").innerText();
      expect(quoted).toMatch(difference);
      await confirmation.getByRole("button", { name: "Confirm change" }).click();
      await expectToast(page, "Plan Changed", `You are now on ${target.name}.`);
      await expect.poll(() => page.getByTestId("plan-name").innerText()).toBe(target.name);
      return cents(quoted.split(" ")[0]!);
    }
    const quotedCredit = await changeTo(basic, /^\$[\d,]+\.\d\d credited to your next invoice$/);
    const quotedCharge = await changeTo(proYearly, /^\$[\d,]+\.\d\d charged now$/);

    const rows = await ledgerOf(subscription.id);
    const purchase = rowOf(rows, "charge", "purchase");
    const credit = rowOf(rows, "credit", "plan_change");
    const yearly = rowOf(rows, "charge", "plan_change");
    expect(rows).toHaveLength(3);
    // Same interval: the unused share of the month, at Pro Monthly's price less Basic's, is credited
    // and the period end stays. Monthly to yearly: a new year starts now, at Pro Yearly's price
    // less the unused share of Basic's month.
    const share1 = unusedShare(periodEndsAt, credit.occurredAt, proMonthly);
    const creditCents = Math.round(proMonthly.priceCents * share1) - Math.round(basic.priceCents * share1);
    const share2 = unusedShare(periodEndsAt, yearly.occurredAt, basic);
    const yearlyCents = proYearly.priceCents - Math.round(basic.priceCents * share2);
    expect(creditCents).toBeGreaterThan(0);
    expect(quotedCredit).toBe(creditCents);
    expect(quotedCharge).toBe(yearlyCents);
    store.push(
      {
        email,
        subscriptionId: subscription.id,
        orderNumber: purchase.orderNumber,
        what: "Payment: purchase",
        kind: "charge",
        cents: proMonthly.priceCents,
      },
      {
        email,
        subscriptionId: subscription.id,
        orderNumber: credit.orderNumber,
        what: "Credit: plan change",
        kind: "credit",
        cents: -creditCents,
      },
      {
        email,
        subscriptionId: subscription.id,
        orderNumber: yearly.orderNumber,
        what: "Payment: plan change",
        kind: "charge",
        cents: yearlyCents,
      },
    );
    await expectBooksAgree({ page, email, subscriptionId: subscription.id });

    // The plan-change e-mails say the same credit and charge.
    const changed = (await receiptFiles(email)).filter((mail) => mail.kind === "plan-changed");
    const lines = changed.map((mail) => /Price difference: (.+)/.exec(mail.text)?.[1]?.trim()).sort();
    const usd = (amount: number) => `$${(amount / 100).toFixed(2)}`;
    expect(lines).toEqual(
      [`${usd(creditCents)} credited to your next invoice`, `${usd(yearlyCents)} charged now`].sort(),
    );

    // The console's search shows the order as bought, and the plan it is on now.
    const found = await searchOrder(yearly.orderNumber);
    expect(found.plan).toContain(proMonthly.name);
    expect(cents(found.plan.split("\n").at(-1)!)).toBe(proMonthly.priceCents);
    expect(found.subscription).toContain(`Now on ${proYearly.name}`);
  });
});
