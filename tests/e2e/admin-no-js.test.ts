// The staff console without JavaScript (issue 27): every form is a plain form posted to its page's
// route action, so a browser with scripts off signs up, confirms, signs in, resends a device's
// config, refunds the subscription and turns two-factor on, and each page it gets back says what
// happened.
import { eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import { devices, outboxMessages, subscriptions } from "#server/db/schema/index.ts";
import { confirmationLinkFromOutbox } from "../support/admin-browser.ts";
import { PASSWORD, STAFF_EMAIL, totp } from "../support/staff.ts";
import { useBrowserApp } from "../support/browser.ts";
import { buyUntilCheckout, expectToast, payOnCheckout } from "../support/purchase-browser.ts";

const BUYER = "no-script-buyer@example.com";

describe("the staff console with JavaScript turned off", () => {
  const app = useBrowserApp({ ownUrl: true });
  const contexts: BrowserContext[] = [];

  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  async function pageWithoutScripts(): Promise<Page> {
    const context = await app.browser.newContext({ javaScriptEnabled: false });
    contexts.push(context);
    return context.newPage();
  }

  /** The page the browser got back after a post made without scripts: its notice says the outcome. */
  const notice = (page: Page) => page.getByTestId("action-notice");

  async function confirm(page: Page, opener: string, reason: string) {
    await page.getByRole("button", { name: opener, exact: true }).first().click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (kept in the audit log)").fill(reason);
    await Promise.all([
      page.waitForNavigation(),
      dialog.getByRole("button", { name: opener, exact: true }).click(),
    ]);
  }

  it("signs up, confirms, signs in, resends a config, refunds and turns two-factor on, each page telling the outcome", async () => {
    const buyerContext = await app.browser.newContext();
    contexts.push(buyerContext);
    const buyPage = await buyerContext.newPage();
    await buyUntilCheckout(buyPage, app.server.url, findPlan("pro-monthly")!, BUYER);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await expectToast(buyPage, "Payment Successful");
    const [subscription] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, BUYER));

    const signUp = await pageWithoutScripts();
    await signUp.goto(`${app.server.url}/admin/login`);
    expect(await signUp.evaluate(() => "__reactRouterContext" in window).catch(() => false)).toBe(false);
    await signUp.getByLabel("Email").fill(STAFF_EMAIL);
    await signUp.getByLabel("Password").fill(PASSWORD);
    await signUp.getByRole("button", { name: "Sign up with the same credentials" }).click();
    await signUp.getByText("Check your email to confirm your account").waitFor();
    await signUp.goto(await confirmationLinkFromOutbox(app.server, STAFF_EMAIL));
    await signUp.getByLabel("Password").fill(PASSWORD);
    await signUp.getByRole("button", { name: "Confirm" }).click();
    await signUp.waitForURL(`${app.server.url}/admin/blog`);

    // A second browser, also without scripts, signs in with the password.
    const page = await pageWithoutScripts();
    await page.goto(`${app.server.url}/admin/login`);
    await page.getByLabel("Email").fill(STAFF_EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign In" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /password/i })
      .waitFor();
    // The page came back from the server with the address typed, never the password.
    expect(await page.getByLabel("Email").inputValue()).toBe(STAFF_EMAIL);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.waitForURL(`${app.server.url}/admin/blog`);

    await page.goto(`${app.server.url}/admin/subscriptions/${subscription!.id}`);
    const configEmails = () =>
      app.server.services.db.select().from(outboxMessages).where(eq(outboxMessages.toAddress, BUYER));
    const before = (await configEmails()).length;
    await confirm(page, "Resend config", "customer lost the first e-mail");
    expect(await notice(page).innerText()).toBe("Config e-mail queued");
    expect((await configEmails()).length).toBe(before + 1);

    await confirm(page, "Refund", "customer asked within 7 days");
    expect(await notice(page).innerText()).toBe("Refunded");
    expect(await page.getByTestId("subscription-status").innerText()).toBe("Refunded");
    const [refunded] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, subscription!.id));
    expect(refunded!.status).toBe("refunded");
    const live = await app.server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    expect(live.every((device) => device.revokedAt !== null)).toBe(true);
    expect(await page.getByRole("button", { name: "Refund", exact: true }).count()).toBe(0);

    // Two-factor: the QR code and the backup codes stay on screen through a refused code.
    await page.goto(`${app.server.url}/admin/blog`);
    await page.getByRole("button", { name: "Set up two-factor" }).click();
    await page.getByLabel("Confirm your password").fill("not the password");
    await page.getByRole("button", { name: "Continue" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /password/i })
      .waitFor();
    await page.getByLabel("Confirm your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Continue" }).click();
    const secret = await page.getByTestId("totp-secret").innerText();
    const backupCodes = await page.getByTestId("backup-codes").locator("li").allInnerTexts();
    expect(backupCodes.length).toBeGreaterThanOrEqual(8);
    expect(page.url()).not.toContain(secret);
    await page.getByLabel("Authentication code").fill("12345");
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("alert").filter({ hasText: /code/i }).waitFor();
    expect(await page.getByTestId("totp-secret").innerText()).toBe(secret);
    expect(await page.getByTestId("backup-codes").locator("li").allInnerTexts()).toEqual(backupCodes);
    await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
    await page.getByLabel("Authentication code").fill(totp(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByText("Two-factor authentication is on.").waitFor();
    expect(page.url()).toBe(`${app.server.url}/admin/blog`);
    await page.getByRole("button", { name: "Turn off two-factor" }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.some((cookie) => cookie.value.includes(secret))).toBe(false);
  });
});
