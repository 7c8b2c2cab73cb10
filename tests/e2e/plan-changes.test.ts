// Plan changes from /account in a real browser (decision 104): Basic → Pro Monthly raises the device
// limit; the downgrade back asks which device to keep and revokes the others only on confirming;
// an Unlock Pass pays for 7 more days on the same pass.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { and, eq, isNull } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { formatLongDate } from "#core/format.ts";
import { findPlan } from "#core/plans.ts";
import { devices, ledgerEntries, subscriptions } from "#server/db/schema/index.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { buyUntilCheckout, expectToast, open, payOnCheckout } from "../support/purchase-browser.ts";

const DAY_MS = 86_400_000;
const AXE_SOURCE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** axe-core's violations on the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
  return page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
    };
    const result = await axe.run();
    return result.violations.map(
      (violation) => `${violation.id} ${JSON.stringify(violation.nodes[0]?.target)}`,
    );
  });
}

describe("plan changes on the account page", () => {
  const app = useBrowserApp({ ownUrl: true });
  const contexts: BrowserContext[] = [];

  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  /** Buys the plan in one browser, then signs in to /account by the e-mailed link in another. */
  async function boughtAndSignedIn(planId: string, email: string): Promise<Page> {
    const paying = await app.browser.newContext();
    const buyPage = await paying.newPage();
    await buyUntilCheckout(buyPage, app.server.url, findPlan(planId)!, email);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await buyPage.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await expectToast(buyPage, "Payment Successful");
    await paying.close();

    const signedIn = await app.browser.newContext();
    contexts.push(signedIn);
    const page = await signedIn.newPage();
    await open(page, `${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").waitFor();
    await open(page, await signInLinkFromOutboxFiles(app.server.dataDir, email));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    await waitForHydration(page);
    return page;
  }

  async function subscriptionOf(email: string) {
    const [row] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, email));
    return row!;
  }
  const liveDevices = async (subscriptionId: string) =>
    app.server.services.db
      .select()
      .from(devices)
      .where(and(eq(devices.subscriptionId, subscriptionId), isNull(devices.revokedAt)));

  it("upgrades Basic to Pro Monthly, adds a third device, then downgrades keeping the chosen one", async () => {
    const email = "plan-upgrade@example.com";
    const page = await boughtAndSignedIn("basic-monthly", email);
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("1 of 1 in use");

    await page.getByRole("button", { name: "Change plan" }).click();
    await page.getByRole("radio", { name: /^Pro Monthly/ }).check();
    await page.getByRole("button", { name: "Review change" }).click();
    const confirmation = page.getByTestId("plan-change-confirmation");
    await confirmation.waitFor();
    expect(await confirmation.getByTestId("price-difference").innerText()).toMatch(
      /^\$[23]\.\d\d added to your next invoice$/,
    );
    await confirmation.getByRole("button", { name: "Confirm change" }).click();
    await expectToast(page, "Plan Changed", "You are now on Pro Monthly.");
    await expect.poll(() => page.getByTestId("plan-name").innerText()).toBe("Pro Monthly");
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("1 of 3 in use");

    for (const slot of [2, 3]) {
      await page.getByRole("button", { name: "Add a device" }).click();
      await expectToast(page, "Device Added", `The config for device ${slot} is ready.`);
      await page.getByTestId(`device-${slot}`).waitFor();
    }
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("3 of 3 in use");

    const subscription = await subscriptionOf(email);
    await page.getByRole("button", { name: "Change plan" }).click();
    await page.getByRole("radio", { name: /^Basic Monthly/ }).check();
    await page.getByRole("button", { name: "Review change" }).click();
    await confirmation.waitFor();
    expect(await confirmation.getByTestId("price-difference").innerText()).toMatch(
      /credited to your next invoice$/,
    );
    const confirm = confirmation.getByRole("button", { name: "Confirm change" });
    expect(await confirm.isDisabled()).toBe(true);
    await confirmation.getByRole("checkbox", { name: "Keep Device 3" }).check();
    // Chosen but not confirmed: every device still works.
    expect(await liveDevices(subscription.id)).toHaveLength(3);
    expect(await confirm.isDisabled()).toBe(false);
    // Checked once the toasts of the earlier steps have gone (a fading toast is half transparent).
    await expect.poll(() => page.locator("[data-sonner-toast]").count(), { timeout: 15_000 }).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await confirm.click();
    await expectToast(page, "Plan Changed", "You are now on Basic Monthly.");
    await expect.poll(() => page.getByTestId("devices-in-use").innerText()).toBe("1 of 1 in use");
    const kept = await liveDevices(subscription.id);
    expect(kept.map((device) => [device.name, device.slot])).toEqual([["Device 3", 1]]);
    expect(await page.getByTestId("device-1").getByTestId("device-name").innerText()).toBe("Device 3");
  });

  it("gives an Unlock Pass 7 more days through the checkout, back on /account", async () => {
    const email = "plan-pass@example.com";
    const page = await boughtAndSignedIn("unlock", email);
    const before = await subscriptionOf(email);

    await page.getByRole("button", { name: "Extend or upgrade" }).click();
    await page.getByRole("radio", { name: "Add 7 more days ($9.99)" }).check();
    await page.getByRole("button", { name: "Review change" }).click();
    const confirmation = page.getByTestId("plan-change-confirmation");
    expect(await confirmation.getByTestId("price-difference").innerText()).toBe("$9.99 charged now");
    await confirmation.getByRole("button", { name: "Continue to payment" }).click();
    await page.waitForURL(/\/checkout\/cs_test_/);
    await waitForHydration(page);
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(`${app.server.url}/account?plan-change=paid`);
    await waitForHydration(page);

    const after = await subscriptionOf(email);
    expect(after.id).toBe(before.id);
    expect(after.expiresAt.getTime() - before.expiresAt.getTime()).toBe(7 * DAY_MS);
    expect(await page.getByTestId("expiry-date").innerText()).toBe(formatLongDate(after.expiresAt));
    expect(await page.getByTestId("subscription").count()).toBe(1);
    expect(await liveDevices(after.id)).toHaveLength(1);

    // The extension is an order of its own (decision 120): its own number on the billing page and
    // its own receipt, beside the first payment.
    const charges = (
      await app.server.services.db
        .select()
        .from(ledgerEntries)
        .where(eq(ledgerEntries.subscriptionId, after.id))
    ).filter((row) => row.kind === "charge");
    expect(charges.map((row) => row.purpose).sort()).toEqual(["pass_extension", "purchase"]);
    await open(page, `${app.server.url}/account/billing`);
    const history = page.getByTestId("billing-history");
    for (const charge of charges)
      await history.getByRole("link", { name: `Receipt of order ${charge.orderNumber}` }).waitFor();
    const extension = charges.find((row) => row.purpose === "pass_extension")!;
    await history.getByRole("link", { name: `Receipt of order ${extension.orderNumber}` }).click();
    await page.waitForURL(/\/account\/receipts\//);
    expect(await page.getByTestId("order-number").innerText()).toBe(extension.orderNumber);
    expect(await page.getByTestId("amount-paid").innerText()).toBe("$9.99");
  });
});
