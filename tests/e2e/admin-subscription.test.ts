import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { freePort, signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { startTestServer, type TestServer } from "../support/app.ts";
import { launchBrowser, waitForHydration } from "../support/browser.ts";

const CUSTOMER = "console-buyer@example.com";

describe("the staff subscription page in a real browser", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A pro-monthly plan bought on the built-in checkout, as the purchase pages do it. */
  async function buyPlan() {
    const created = await fetch(`${server.url}/api/create-checkout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ planId: "pro-monthly", customerEmail: CUSTOMER }),
    });
    expect(created.status).toBe(200);
    const sessionId = new URL(((await created.json()) as { url: string }).url).pathname.split("/").pop()!;
    const paid = await fetch(`${server.url}/checkout/${sessionId}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123" }),
    });
    expect(paid.status).toBe(302);
    const [subscription] = await server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    const [device] = await server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    return { subscription: subscription!, device: device! };
  }

  /** How many .eml files the mail worker has written to the customer. */
  async function emailsToCustomer(): Promise<number> {
    const outbox = path.join(server.dataDir, "outbox");
    const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
      name.endsWith(".eml"),
    );
    let count = 0;
    for (const name of names)
      if ((await fs.readFile(path.join(outbox, name), "utf8")).includes(`To: ${CUSTOMER}`)) count++;
    return count;
  }

  async function confirm(page: Page, scope: ReturnType<Page["locator"]>, label: string, reason: string) {
    await scope.getByRole("button", { name: label, exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (kept in the audit log)").fill(reason);
    await dialog.getByRole("button", { name: label, exact: true }).click();
  }

  it("resends a config, revokes device 1 and refunds, and the audit log lists all three with their reasons", async () => {
    const { subscription, device } = await buyPlan();
    const link = downloadUrl(server.services, device);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, server, STAFF_EMAIL);
    await page.waitForURL(`${server.url}/admin/blog`);

    await page.goto(`${server.url}/admin/subscriptions/${subscription.id}`);
    await waitForHydration(page);
    await page.getByRole("heading", { level: 1, name: /^Subscription / }).waitFor();
    await page.getByText(CUSTOMER).first().waitFor();
    await expect.poll(emailsToCustomer, { timeout: 10_000 }).toBeGreaterThan(0);
    const before = await emailsToCustomer();

    const deviceRow = page.getByRole("region", { name: "Devices" }).getByRole("listitem").first();
    await confirm(page, deviceRow, "Resend config", "customer lost the first e-mail");
    await toast(page, "Config e-mail queued").waitFor();
    await expect.poll(emailsToCustomer, { timeout: 10_000 }).toBe(before + 1);

    await confirm(page, deviceRow, "Revoke", "laptop was stolen");
    await toast(page, "Device revoked").waitFor();
    await deviceRow.getByText(/^Revoked /).waitFor();
    expect((await fetch(link)).status).toBe(410);

    await confirm(page, page.locator("body"), "Refund", "customer asked within 7 days");
    await toast(page, "Refunded").waitFor();
    await expect.poll(() => page.getByTestId("subscription-status").innerText()).toBe("refunded");
    const [refunded] = await server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, subscription.id));
    expect(refunded!.status).toBe("refunded");
    const live = await server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription.id));
    expect(live.every((row) => row.revokedAt !== null)).toBe(true);

    await page.goto(`${server.url}/admin/audit`);
    const rows = page.locator("tbody tr");
    await rows.first().waitFor();
    const text = await page.locator("tbody").innerText();
    for (const expected of [
      "device.resend-config",
      "customer lost the first e-mail",
      "device.revoke",
      "laptop was stolen",
      "subscription.refund",
      "customer asked within 7 days",
    ])
      expect(text).toContain(expected);
    await context.close();
  });
});
