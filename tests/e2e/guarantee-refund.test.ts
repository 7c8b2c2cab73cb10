// The 7-day guarantee in one click, in a real browser (issue 38, decision 136): an unused purchase
// inside the window is refunded from /account (access ends, the ledger's refund row, the e-mail in
// the outbox, the payments page lists it); one outside the window explains why, links the contact
// form and changes nothing.
import { and, eq } from "drizzle-orm";
import type { BrowserContext } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { findPlan, type Plan } from "#core/plans.ts";
import { devices, outboxMessages, subscriptions } from "#server/db/schema/index.ts";
import { ledgerOfSubscriptions } from "#server/domain/billing/ledger.ts";
import { DAY_MS } from "#server/domain/time.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { queuedEmailsWhere } from "../support/outbox.ts";
import { buyUntilCheckout, expectToast, open, payOnCheckout } from "../support/purchase-browser.ts";

const EMAIL = "guarantee-buyer@example.com";

describe("Refund this purchase, in the browser", () => {
  const app = useBrowserApp({ ownUrl: true });
  let signedIn: BrowserContext | undefined;

  afterAll(async () => {
    await signedIn?.close();
  });

  /** Buys `plan` in a browser of its own, up to the success page (no QR shown, nothing downloaded). */
  async function buyInBrowser(plan: Plan) {
    const paying = await app.browser.newContext();
    const page = await paying.newPage();
    await buyUntilCheckout(page, app.server.url, plan, EMAIL);
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await expectToast(page, "Payment Successful");
    await paying.close();
    const [row] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.customerEmail, EMAIL), eq(subscriptions.planId, plan.id)));
    return row!;
  }

  async function stateOf(subscriptionId: string) {
    const db = app.server.services.db;
    const [subscription] = await db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
    return {
      status: subscription!.status,
      liveDevices: (await db.select().from(devices).where(eq(devices.subscriptionId, subscriptionId))).filter(
        (device) => device.revokedAt === null,
      ).length,
      ledger: (await ledgerOfSubscriptions(db, [subscriptionId])).map((row) => [row.kind, row.amountCents]),
    };
  }

  it("refunds the unused plan inside the window and explains why the one outside it is not", async () => {
    const monthly = findPlan("pro-monthly")!;
    const pass = findPlan("unlock")!;
    const inside = await buyInBrowser(monthly);
    const outside = await buyInBrowser(pass);
    // The pass was bought 8 days ago (its period moved with it, so it still runs).
    await app.server.services.db
      .update(subscriptions)
      .set({ createdAt: new Date(Date.now() - 8 * DAY_MS) })
      .where(eq(subscriptions.id, outside.id));
    const outsideBefore = await stateOf(outside.id);

    signedIn = await app.browser.newContext();
    const page = await signedIn.newPage();
    await open(page, `${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(EMAIL);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").getByText("a sign-in link is on its way").waitFor();
    await open(page, await signInLinkFromOutboxFiles(app.server.dataDir, EMAIL));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    await waitForHydration(page);

    // Outside the window: why, and the contact form; no refund offered.
    const passCard = page.getByRole("region", { name: pass.name });
    const refusal = passCard.getByTestId("guarantee-refusal");
    expect(await refusal.innerText()).toContain("The 7-day guarantee of this purchase ended on");
    expect(await refusal.getByRole("link", { name: "Contact support" }).getAttribute("href")).toBe(
      "/contact",
    );
    expect(await passCard.getByRole("button", { name: "Refund this purchase" }).count()).toBe(0);

    // Inside: the button asks first, then refunds.
    const monthlyCard = page.getByRole("region", { name: monthly.name });
    await monthlyCard.getByRole("button", { name: "Refund this purchase" }).click();
    const confirm = monthlyCard.getByTestId("guarantee-confirm");
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain("its configs stop working");
    await confirm.getByRole("button", { name: `Yes, refund ${monthly.price}` }).click();
    await expectToast(page, "Purchase Refunded");
    await monthlyCard.getByTestId("reversed-notice").waitFor();
    expect(await monthlyCard.getByTestId("subscription-status").innerText()).toMatch(/^Refunded on /);
    expect(await monthlyCard.getByRole("button", { name: "Refund this purchase" }).count()).toBe(0);

    expect(await stateOf(inside.id)).toEqual({
      status: "refunded",
      liveDevices: 0,
      ledger: expect.arrayContaining([
        ["charge", monthly.priceCents],
        ["refund", monthly.priceCents],
      ]) as unknown,
    });
    expect((await stateOf(inside.id)).ledger).toHaveLength(2);
    const refundedMail = await queuedEmailsWhere(
      app.server.services,
      and(eq(outboxMessages.toAddress, EMAIL), eq(outboxMessages.kind, "subscription-refunded")),
    );
    expect(refundedMail).toHaveLength(1);
    expect(refundedMail[0]!.text).toContain(monthly.price);

    await open(page, `${app.server.url}/account/billing`);
    // The payments page lists the refund (money back: a minus sign), and the payment as refunded.
    const rows = page.getByRole("row").filter({ hasText: monthly.name });
    expect(await rows.filter({ hasText: `−${monthly.price}` }).count()).toBe(1);
    const payment = rows.filter({ hasText: "Payment: purchase" });
    expect(await payment.getAttribute("data-status")).toBe("refunded");

    // The pass outside the window is untouched.
    expect(await stateOf(outside.id)).toEqual(outsideBefore);
    expect(outsideBefore.status).toBe("active");
  });
});
