import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useBrowserApp } from "../support/browser.ts";
import { expectToast, open } from "../support/purchase-browser.ts";

const PRO_MONTHLY = { id: "pro-monthly", name: "Pro Monthly", price: "$7.99" };
const ADA = { firstName: "Ada", lastName: "Obi", email: "ada@example.com", phone: "", country: "", city: "" };

describe("the validation messages of the purchase steps (docs/product.md §4.2 and §4.3)", () => {
  const app = useBrowserApp();

  async function freshPage(storage: Record<string, unknown> = {}): Promise<Page> {
    const page = await app.browser.newPage();
    await page.addInitScript((entries) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, JSON.stringify(value));
    }, storage);
    return page;
  }

  it("keeps Continue to Details disabled until a plan is chosen, and stores the chosen plan", async () => {
    const page = await freshPage();
    await open(page, `${app.server.url}/get-started`);
    for (const step of ["Choose Plan", "Your Details", "Payment"]) {
      await page
        .getByRole("navigation", { name: "Purchase progress" })
        .getByText(step, { exact: true })
        .waitFor();
    }
    expect(await page.getByRole("button", { name: "Continue to Details" }).isDisabled()).toBe(true);
    await page.getByRole("radio", { name: "Pro Yearly" }).check();
    expect(await page.getByRole("button", { name: "Continue to Details" }).isEnabled()).toBe(true);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null"));
    expect(stored).toMatchObject({ id: "pro-yearly", name: "Pro Yearly", price: "$79.99", duration: 12 });
    await page.close();
  });

  it("chooses a plan by a click anywhere on its card, and moves the choice with the arrow keys", async () => {
    const page = await freshPage();
    await open(page, `${app.server.url}/get-started`);
    const group = page.getByRole("radiogroup", { name: "Plans" });
    expect(await group.getByRole("radio").count()).toBe(4);
    // A feature line of the card, not its control.
    await page.locator('[data-plan-id="basic-monthly"]').getByText("1 device", { exact: true }).click();
    expect(await group.getByRole("radio", { name: "Basic Monthly" }).isChecked()).toBe(true);
    expect(await page.getByRole("button", { name: "Continue to Details" }).isEnabled()).toBe(true);
    await group.getByRole("radio", { name: "Basic Monthly" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await group.getByRole("radio", { name: "Pro Monthly" }).isChecked()).toBe(true);
    expect(await group.getByRole("radio", { name: "Basic Monthly" }).isChecked()).toBe(false);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null"));
    expect(stored).toMatchObject(PRO_MONTHLY);
    await page.close();
  });

  it("shows No plan selected with Select a Plan, and alerts when a required detail is missing", async () => {
    const page = await freshPage();
    await open(page, `${app.server.url}/get-started/details`);
    await page.getByText("No plan selected").waitFor();
    expect(await page.getByRole("link", { name: "Select a Plan" }).getAttribute("href")).toBe("/get-started");
    expect(await page.getByRole("link", { name: "Back to Plan Selection" }).getAttribute("href")).toBe(
      "/get-started",
    );
    const alerts: string[] = [];
    page.on("dialog", (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByLabel("First Name").fill("Ada");
    await page.getByLabel("Email Address").fill("ada@example.com");
    await page.getByRole("button", { name: "Continue to Payment" }).click();
    await expect.poll(() => alerts).toEqual(["Please fill in all required fields"]);
    expect(page.url()).toBe(`${app.server.url}/get-started/details`);
    // Phone, country and city stay optional.
    await page.getByLabel("Last Name").fill("Obi");
    await page.getByRole("button", { name: "Continue to Payment" }).click();
    await page.waitForURL(`${app.server.url}/get-started/payment`);
    const details = await page.evaluate(() =>
      JSON.parse(localStorage.getItem("subscriberDetails") ?? "null"),
    );
    expect(details).toEqual({
      firstName: "Ada",
      lastName: "Obi",
      email: "ada@example.com",
      phone: "",
      country: "",
      city: "",
    });
    await page.close();
  });

  it("server-renders the plan panels as placeholders, never a wrong plan or a wrong No plan selected", async () => {
    const html = await (await fetch(`${app.server.url}/get-started/details`)).text();
    expect(html).not.toContain("No plan selected");
    const payment = await (await fetch(`${app.server.url}/get-started/payment`)).text();
    expect(payment).not.toContain("Basic Monthly");
    const page = await freshPage({ selectedPlan: PRO_MONTHLY });
    await open(page, `${app.server.url}/get-started/details`);
    await page.getByTestId("plan-summary").getByText("Pro Monthly").waitFor();
    expect(await page.getByText("No plan selected").count()).toBe(0);
    await page.close();
  });

  it("shows Terms Required, Plan Required and Coming Soon, with the default Basic Monthly summary", async () => {
    const page = await freshPage();
    await open(page, `${app.server.url}/get-started/payment`);
    expect(await page.getByTestId("order-summary").innerText()).toContain("Basic Monthly");
    expect(await page.getByTestId("order-total").innerText()).toBe("$4.99");
    const pay = page.getByRole("button", { name: "Complete Payment" });
    expect(await pay.getAttribute("aria-disabled")).toBe("true");
    await pay.click({ force: true });
    await expectToast(page, "Terms Required", "Please agree to the 7-day guarantee policy to continue");

    await page.getByRole("radio", { name: /PayPal/ }).click({ force: true });
    await expectToast(page, "Coming Soon", "PayPal integration is coming soon.");
    await page.getByRole("radio", { name: /Cryptocurrency/ }).click({ force: true });
    await expectToast(page, "Coming Soon", "Cryptocurrency integration is coming soon.");
    expect(await page.getByRole("radio", { name: /Card/ }).getAttribute("aria-checked")).toBe("true");
    expect(await page.getByRole("radio", { name: /PayPal/ }).getAttribute("aria-checked")).toBe("false");

    await page.getByRole("checkbox").check();
    expect(await pay.getAttribute("aria-disabled")).toBeNull();
    await pay.click();
    await expectToast(page, "Plan Required", "Please select a plan first");
    expect(page.url()).toBe(`${app.server.url}/get-started/payment`);
    expect(await page.getByRole("link", { name: "Back to Details" }).getAttribute("href")).toBe(
      "/get-started/details",
    );
    await page.close();
  });

  it("reads Processing... while busy and shows Payment Error when checkout cannot start or returns no url", async () => {
    const page = await freshPage({ selectedPlan: PRO_MONTHLY, subscriberDetails: ADA });
    await open(page, `${app.server.url}/get-started/payment`);
    expect(await page.getByTestId("order-total").innerText()).toBe("$7.99");
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/create-checkout", async (route) => {
      await held;
      await route.fulfill({ status: 200, contentType: "application/json", body: "{}" });
    });
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Complete Payment" }).click();
    const busy = page.getByRole("button", { name: "Processing..." });
    await busy.waitFor();
    expect(await busy.isDisabled()).toBe(true);
    release();
    await expectToast(page, "Payment Error", "Unable to start checkout process. Please try again.");
    await page.getByRole("button", { name: "Complete Payment" }).waitFor();
    expect(page.url()).toBe(`${app.server.url}/get-started/payment`);

    await page.unroute("**/api/create-checkout");
    await page.route("**/api/create-checkout", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"Internal error"}' }),
    );
    await page.getByRole("button", { name: "Complete Payment" }).click();
    await expect
      .poll(() => page.locator("[data-sonner-toast]").filter({ hasText: "Payment Error" }).count())
      .toBe(2);
    await page.close();
  });

  it("shows Download Failed when the config cannot be fetched, and Configuration Pending without a downloadUrl", async () => {
    const page = await freshPage();
    const sessionId = "cs_test_routedRoutedRouted1";
    await page.route("**/api/verify-payment", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          success: true,
          subscription: {
            planType: "basic",
            deviceLimit: 1,
            expiresAt: "2030-01-31T00:00:00.000Z",
            activeDevices: 1,
          },
          downloadUrl: `${app.server.url}/api/configs/brokenBrokenBroken123`,
          configSlot: 1,
        }),
      }),
    );
    await open(page, `${app.server.url}/payment-success?session_id=${sessionId}`);
    await expectToast(page, "Payment Successful", "Your VPN configuration is ready.");
    expect(await page.getByTestId("date-label").innerText()).toBe("Next Billing");
    await page.getByText("January 31, 2030").waitFor();
    await page.getByRole("button", { name: "Download .conf File" }).click();
    await expectToast(
      page,
      "Download Failed",
      "Unable to download the file. Please try again or contact support.",
    );
    await page.close();

    const pending = await freshPage();
    await pending.route("**/api/verify-payment", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          success: true,
          subscription: {
            planType: "unlock",
            deviceLimit: 1,
            expiresAt: "2030-01-07T00:00:00.000Z",
            activeDevices: 0,
          },
          downloadUrl: null,
          configSlot: null,
        }),
      }),
    );
    await open(pending, `${app.server.url}/payment-success?session_id=${sessionId}`);
    await pending.getByRole("heading", { name: "Configuration Pending" }).waitFor();
    expect(await pending.getByRole("button", { name: "Download .conf File" }).count()).toBe(0);
    expect(await pending.getByTestId("date-label").innerText()).toBe("Expires on");
    await pending.close();
  });

  it("shows Device Limit Reached with the server's message and the Invalid Payment Session view", async () => {
    const page = await freshPage();
    await page.route("**/api/verify-payment", (route) =>
      route.fulfill({
        status: 409,
        contentType: "application/json",
        body: JSON.stringify({
          success: false,
          error: "Device limit reached",
          message: "All 3 devices are in use.",
        }),
      }),
    );
    await open(page, `${app.server.url}/payment-success?session_id=cs_test_limitLimitLimit12`);
    await expectToast(page, "Device Limit Reached", "All 3 devices are in use.");
    await page.getByRole("heading", { name: "Invalid Payment Session" }).waitFor();
    await page.close();
  });
});
