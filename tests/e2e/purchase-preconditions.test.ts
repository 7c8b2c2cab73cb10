// Before a checkout starts, in Chromium: with no VPN server able to take a device, /pricing and
// the purchase steps say orders are paused (with or without JavaScript) and no checkout row is
// written; and the payment step without the buyer's details sends them back to fill them in.
import { count } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { checkoutSessions, vpnServers } from "#server/db/schema/index.ts";
import { useBrowserApp } from "../support/browser.ts";
import { expectToast, open } from "../support/purchase-browser.ts";

const PRO_MONTHLY = { id: "pro-monthly", name: "Pro Monthly", price: "$7.99" };
const ADA = { firstName: "Ada", lastName: "Obi", email: "ada@example.com", phone: "", country: "", city: "" };

describe("before a checkout starts", () => {
  const app = useBrowserApp({ backgroundJobs: false });

  async function freshPage(storage: Record<string, unknown> = {}, javaScriptEnabled = true): Promise<Page> {
    const context = await app.browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.addInitScript((entries) => {
      for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, JSON.stringify(value));
    }, storage);
    return page;
  }
  const checkoutRows = async () =>
    (await app.server.services.db.select({ value: count() }).from(checkoutSessions))[0]!.value;

  it("says orders are paused on /pricing, /get-started and the payment step, with or without script, and starts no checkout", async () => {
    const { db } = app.server.services;
    await db.update(vpnServers).set({ status: "draining" });
    try {
      const page = await freshPage({ selectedPlan: PRO_MONTHLY, subscriberDetails: ADA });
      await page.goto(`${app.server.url}/pricing`);
      await page.getByTestId("orders-paused").getByText("Orders are paused").waitFor();
      expect(await page.getByRole("button", { name: "Orders paused" }).count()).toBe(4);
      for (const button of await page.getByRole("button", { name: "Orders paused" }).all())
        expect(await button.isDisabled()).toBe(true);
      expect(await page.getByRole("button", { name: "Get Started" }).count()).toBe(0);

      for (const step of ["/get-started", "/get-started/details", "/get-started/payment"]) {
        await open(page, `${app.server.url}${step}`);
        await page.getByTestId("orders-paused").getByText("Orders are paused").waitFor();
        for (const control of ["Continue to Details", "Continue to Payment", "Complete Payment"])
          expect(await page.getByRole("button", { name: control }).count(), `${step}: ${control}`).toBe(0);
        expect(await page.getByRole("textbox").count(), step).toBe(0);
      }
      await page.context().close();

      const noScript = await freshPage({}, false);
      for (const step of ["/pricing", "/get-started", "/get-started/payment"]) {
        await noScript.goto(`${app.server.url}${step}`);
        expect(await noScript.getByTestId("orders-paused").innerText(), step).toContain("nobody is charged");
      }
      await noScript.context().close();
      expect(await checkoutRows()).toBe(0);
    } finally {
      await db.update(vpnServers).set({ status: "active" });
    }
  });

  it("turns the payment step into the paused notice when orders stop after it loaded, and starts no checkout", async () => {
    const { db } = app.server.services;
    const page = await freshPage({ selectedPlan: PRO_MONTHLY, subscriberDetails: ADA });
    await open(page, `${app.server.url}/get-started/payment`);
    await page.getByRole("checkbox").check();
    const before = await checkoutRows();
    await db.update(vpnServers).set({ status: "draining" });
    try {
      await page.getByRole("button", { name: "Complete Payment" }).click();
      await page.getByTestId("orders-paused").getByText("Orders are paused").waitFor();
      expect(await page.getByRole("button", { name: "Complete Payment" }).count()).toBe(0);
      expect(await page.locator("[data-sonner-toast]").filter({ hasText: "Payment Error" }).count()).toBe(0);
      expect(await checkoutRows()).toBe(before);
    } finally {
      await db.update(vpnServers).set({ status: "active" });
    }
    await page.context().close();
  });

  it("sends a buyer who skipped the details step back to it with Please fill in all required fields, and starts no checkout", async () => {
    const page = await freshPage({ selectedPlan: PRO_MONTHLY });
    const before = await checkoutRows();
    const calls: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/create-checkout")) calls.push(request.url());
    });
    await open(page, `${app.server.url}/get-started/payment`);
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Complete Payment" }).click();
    await expectToast(page, "Details Required", "Please fill in all required fields");
    await page.waitForURL(`${app.server.url}/get-started/details`);
    await page.getByLabel("Email Address").waitFor();
    expect(calls).toEqual([]);
    expect(await checkoutRows()).toBe(before);
    await page.context().close();
  });
});
