import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { PLANS, PLAN_TYPE_LABELS } from "#core/plans.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { useBrowserApp } from "../support/browser.ts";
import {
  buyUntilCheckout,
  downloadConfig,
  expectCompleteWireGuardConfig,
  expectToast,
  open,
  payOnCheckout,
} from "../support/purchase-browser.ts";

const DATE_LABELS = {
  unlock: "Expires on",
  basic: "Next Billing",
  pro_monthly: "Next Billing",
  pro_yearly: "Renews on",
};

describe("buying a plan on the built-in checkout, as a new buyer", () => {
  const app = useBrowserApp();

  /** How the buyer's device in `slot` was activated (null: not yet). */
  async function activationOf(customerEmail: string, slot: number) {
    const [row] = await app.server.services.db
      .select({ via: devices.activatedVia })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(subscriptions.customerEmail, customerEmail), eq(devices.slot, slot)));
    return row?.via ?? null;
  }

  it.each(PLANS)(
    "$name: choose, details, pay with 4242 and download a complete WireGuard config",
    async (plan) => {
      const context = await app.browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      const email = `buyer-${plan.id}@example.com`;
      await buyUntilCheckout(page, app.server.url, plan, email);
      expect(await page.getByTestId("checkout-plan").innerText()).toBe(plan.name);
      expect(await page.getByTestId("checkout-amount").innerText()).toContain(plan.price);
      expect(await page.getByTestId("checkout-email").innerText()).toBe(email);

      await payOnCheckout(page, "4242 4242 4242 4242");
      await page.waitForURL(/\/payment-success\?session_id=cs_test_/);
      await expectToast(page, "Payment Successful", "Your VPN configuration is ready.");
      expect(await page.getByTestId("plan-name").innerText()).toBe(PLAN_TYPE_LABELS[plan.planType]);
      expect(await page.getByTestId("date-label").innerText()).toBe(DATE_LABELS[plan.planType]);

      const { name, text } = await downloadConfig(page);
      expect(name).toBe("NaijaLink1.conf");
      expectCompleteWireGuardConfig(text);
      await expectToast(page, "Download Started");

      await page.getByRole("button", { name: "Show QR Code" }).click();
      const qr = page.getByRole("img", { name: /QR code of the WireGuard config/ });
      await expect
        .poll(() => qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0))
        .toBe(true);
      await context.close();
    },
  );

  it("keeps the buyer on the checkout with a declined card, and Cancel returns to the payment step", async () => {
    const page = await app.browser.newPage();
    await buyUntilCheckout(page, app.server.url, PLANS[1]!, "declined@example.com");
    const checkoutUrl = page.url();
    await payOnCheckout(page, "4000 0000 0000 0002");
    await page.getByRole("alert").filter({ hasText: "Your card was declined." }).waitFor();
    expect(page.url()).toBe(checkoutUrl);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(`${app.server.url}/get-started/payment`);
    await page.close();
  });

  it("shows No payment session found without a session_id", async () => {
    const page = await app.browser.newPage();
    await open(page, `${app.server.url}/payment-success`);
    await expectToast(page, "Error", "No payment session found.");
    await page.getByRole("heading", { name: "Invalid Payment Session" }).waitFor();
    await page.close();
  });

  it("shows Invalid Payment Session with View Plans and Contact Support for a forged session", async () => {
    const page = await app.browser.newPage();
    await open(page, `${app.server.url}/payment-success?session_id=cs_test_forgedForgedForged123`);
    await expectToast(page, "Verification Failed", "Unable to verify payment. Please contact support.");
    await page.getByRole("heading", { name: "Invalid Payment Session" }).waitFor();
    expect(await page.getByRole("link", { name: "View Plans" }).getAttribute("href")).toBe("/pricing");
    expect(await page.getByRole("link", { name: "Contact Support" }).getAttribute("href")).toBe("/contact");
    await page.close();
  });

  it("gives the same config after a reload, adds devices 2 and 3 on Pro, then no longer offers a fourth", async () => {
    const context = await app.browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await buyUntilCheckout(
      page,
      app.server.url,
      PLANS.find((plan) => plan.id === "pro-monthly")!,
      "pro@example.com",
    );
    await payOnCheckout(page, "4242424242424242");
    await page.waitForURL(/\/payment-success/);
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
    const first = await downloadConfig(page);
    // The page's own download counts as activation (decision 064).
    expect(await activationOf("pro@example.com", 1)).toBe("download");

    await page.reload();
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
    const again = await downloadConfig(page);
    expect(again).toEqual(first);

    const add = page.getByRole("button", { name: "Add another device" });
    for (const slot of [2, 3]) {
      await add.click();
      const card = page.getByTestId(`config-${slot}`);
      await card.waitFor();
      if (slot === 2) {
        // Showing the QR on the page activates the device too.
        expect(await activationOf("pro@example.com", 2)).toBeNull();
        await card.getByRole("button", { name: "Show QR Code" }).click();
        await card.getByRole("img", { name: /QR code of the WireGuard config/ }).waitFor();
        expect(await activationOf("pro@example.com", 2)).toBe("qr");
      }
      const { name, text } = await downloadConfig(page, card);
      expect(name).toBe(`NaijaLink${slot}.conf`);
      expectCompleteWireGuardConfig(text);
      expect(text).not.toBe(first.text);
    }
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("3 of 3 in use");
    // At 3 of 3 the button is gone (it could only fail); the page says how to free a slot, with a link.
    await expect.poll(() => add.count()).toBe(0);
    const refusal = page.getByTestId("add-device-refusal");
    expect(await refusal.innerText()).toContain("All 3 devices of this plan have a config");
    expect(await refusal.getByRole("link", { name: "/account" }).getAttribute("href")).toBe("/account");
    await page.reload();
    await page.getByTestId("config-3").waitFor();
    expect(await add.count()).toBe(0);
    await context.close();
  });

  it("says the success link is private; the link opens slot 1 anywhere, but only the browser that paid adds a device", async () => {
    const paying = await app.browser.newContext();
    const page = await paying.newPage();
    const plan = PLANS.find((candidate) => candidate.id === "pro-yearly")!;
    await buyUntilCheckout(page, app.server.url, plan, "private-link@example.com");
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/payment-success/);
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
    expect(await page.getByTestId("private-link-note").innerText()).toContain(
      "Keep this page's link private",
    );

    const elsewhere = await app.browser.newContext();
    const other = await elsewhere.newPage();
    await open(other, page.url());
    await other.getByTestId("config-1").waitFor();
    // This browser cannot add: no button that could only fail, but the way that works, linked.
    expect(await other.getByRole("button", { name: "Add another device" }).count()).toBe(0);
    const refusal = other.getByTestId("add-device-refusal");
    expect(await refusal.innerText()).toContain("Adding a device needs the browser that paid");
    expect(await refusal.getByRole("link", { name: "/account" }).getAttribute("href")).toBe("/account");
    expect(await other.getByTestId("devices-in-use").innerText()).toBe("1 of 3 in use");
    await elsewhere.close();

    await page.getByRole("button", { name: "Add another device" }).click();
    await page.getByTestId("config-2").waitFor();
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("2 of 3 in use");
    await paying.close();
  });

  it("shows every device again when the paying browser reloads the success page, and links to the account page", async () => {
    const paying = await app.browser.newContext({ acceptDownloads: true });
    const page = await paying.newPage();
    const plan = PLANS.find((candidate) => candidate.id === "pro-monthly")!;
    await buyUntilCheckout(page, app.server.url, plan, "reload-devices@example.com");
    await payOnCheckout(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/payment-success/);
    await page.getByRole("button", { name: "Add another device" }).click();
    await page.getByTestId("config-2").waitFor();
    const added = await downloadConfig(page, page.getByTestId("config-2"));

    await page.reload();
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("2 of 3 in use");
    await page.getByTestId("config-1").waitFor();
    expect(await downloadConfig(page, page.getByTestId("config-2"))).toEqual(added);
    const account = page.getByRole("link", { name: "Manage your devices and subscription" });
    expect(await account.getAttribute("href")).toBe("/account");
    const check = page.getByRole("link", { name: "Am I connected through Nigeria?" });
    expect(await check.getAttribute("href")).toBe("/check");
    expect(await page.getByTestId("private-link-note").count()).toBe(1);

    // The forwarded link still opens slot 1 alone (decision 063).
    const elsewhere = await app.browser.newContext();
    const other = await elsewhere.newPage();
    await open(other, page.url());
    await other.getByTestId("config-1").waitFor();
    expect(await other.getByTestId("config-2").count()).toBe(0);
    await elsewhere.close();
    await paying.close();
  });
});
