import { describe, expect, it } from "vitest";
import { PASSWORD, signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { totp } from "../support/staff.ts";

describe("staff required to use two-factor, in a real browser", () => {
  const app = useBrowserApp({ ownUrl: true, env: { STAFF_REQUIRE_TOTP: "true" } });

  it("shows only the enrolment until two-factor is on, then the posts, with the backup codes still on screen", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await waitForHydration(page);
    await page.getByText("Staff accounts must use two-factor authentication.").waitFor();
    expect(await page.getByRole("link", { name: "New Post" }).count()).toBe(0);

    await page.getByRole("button", { name: "Set up two-factor" }).click();
    await page.getByLabel("Confirm your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Continue" }).click();
    const secret = await page.getByTestId("totp-secret").innerText();
    await page.getByLabel("Authentication code").fill(totp(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await toast(page, "Two-factor authentication is on").waitFor();
    await page.getByRole("link", { name: "New Post" }).waitFor();
    expect(await page.getByTestId("backup-codes").locator("li").count()).toBeGreaterThanOrEqual(8);
    expect(await page.getByText("Staff accounts must use two-factor authentication.").count()).toBe(0);
    await context.close();
  }, 60_000);
});
