// The buyer's account with JavaScript turned off (issue 27): every change is a form the browser
// posts itself, and the page after the redirect shows what changed.
import { and, eq, isNull } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { useBrowserApp } from "../support/browser.ts";
import { buyUntilCheckout, payOnCheckout } from "../support/purchase-browser.ts";

const EMAIL = "no-js-buyer@example.com";

describe("the buyer's account page without JavaScript", () => {
  const app = useBrowserApp({ ownUrl: true });

  async function liveDevices() {
    return app.server.services.db
      .select({ slot: devices.slot, name: devices.name })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(and(eq(subscriptions.customerEmail, EMAIL), isNull(devices.revokedAt)))
      .orderBy(devices.slot);
  }

  /** What the page says after a change's redirect (there is no toast without JavaScript). */
  const notice = (page: Page) => page.getByTestId("account-notice").innerText();

  it("signs in by the e-mailed link, renames, adds and revokes a device, cancels and resumes", async () => {
    // The purchase itself is the checkout's business (with JavaScript, as the purchase pages are).
    const paying = await app.browser.newContext();
    const buyPage = await paying.newPage();
    await buyUntilCheckout(buyPage, app.server.url, findPlan("pro-monthly")!, EMAIL);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await buyPage.waitForURL(/\/payment-success\?session_id=cs_test_/);
    await paying.close();
    await expect.poll(async () => (await liveDevices()).length, { timeout: 15_000 }).toBe(1);

    const context = await app.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${app.server.url}/account`);
    await page.getByLabel("E-mail address").fill(EMAIL);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("sign-in-sent").waitFor();
    await page.goto(await signInLinkFromOutboxFiles(app.server.dataDir, EMAIL));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await page.getByTestId("account-email").innerText()).toContain(EMAIL);
    // No script ran: the page is the server's HTML, never hydrated.
    expect(await page.locator("html[data-hydrated]").count()).toBe(0);

    const device1 = page.getByTestId("device-1");
    await device1.getByRole("button", { name: "Rename" }).click();
    await page.waitForURL(/\/account\?device=[0-9a-f-]+&step=rename$/);
    await device1.getByLabel("Device name").fill("Kitchen laptop");
    await device1.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await notice(page)).toContain("Device renamed");
    expect(await device1.getByTestId("device-name").innerText()).toBe("Kitchen laptop");
    expect((await liveDevices()).map((device) => device.name)).toEqual(["Kitchen laptop"]);

    // A name the schema refuses: the form stays open and says why; nothing changes.
    await device1.getByRole("button", { name: "Rename" }).click();
    await device1.getByLabel("Device name").fill("\u202Eevil");
    await device1.getByRole("button", { name: "Save" }).click();
    expect(await device1.getByRole("alert").innerText()).toContain("control or formatting characters");
    expect((await liveDevices()).map((device) => device.name)).toEqual(["Kitchen laptop"]);
    await device1.getByRole("button", { name: "Cancel" }).click();
    await device1.getByLabel("Device name").waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Add a device" }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await notice(page)).toContain("The config for device 2 is ready.");
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("2 of 3 in use");

    const device2 = page.getByTestId("device-2");
    await device2.getByRole("button", { name: "Revoke" }).click();
    // Asked first: nothing is revoked until the question is answered.
    expect(await device2.getByRole("alert").innerText()).toContain("Revoke Device 2?");
    expect(await liveDevices()).toHaveLength(2);
    await device2.getByRole("button", { name: "Revoke device" }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await notice(page)).toContain("Device revoked");
    expect(await device2.count()).toBe(0);
    expect(await page.getByTestId("devices-in-use").innerText()).toBe("1 of 3 in use");
    expect((await liveDevices()).map((device) => device.slot)).toEqual([1]);

    const status = page.getByTestId("subscription-status");
    await page.getByRole("button", { name: "Cancel at period end" }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await notice(page)).toContain("Renewal Cancelled");
    expect(await status.innerText()).toMatch(/^Cancels on \w+ \d{1,2}, \d{4}$/);
    expect(await page.getByTestId("date-label").innerText()).toBe("Cancels on");

    await page.getByRole("button", { name: "Resume renewal" }).click();
    await page.waitForURL(`${app.server.url}/account`);
    expect(await notice(page)).toContain("Renewal Resumed");
    expect(await status.innerText()).toBe("Active");
    expect(await page.getByTestId("date-label").innerText()).toBe("Next Billing");
    await context.close();
  });
});
