// The staff console as staff use it (issue 15): an admin signs in, sees on the dashboard the order
// just bought through the built-in checkout, finds it by typing part of the e-mail, resends its
// config, revokes device 1 and refunds it, and reads the three actions with their reasons in the
// audit log; an editor sees the Blog section only. axe-core checks every console page.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#app/lib/plans.ts";
import { devices, subscriptions } from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { freePort, signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { startTestServer, type TestServer } from "../support/app.ts";
import { launchBrowser, waitForHydration } from "../support/browser.ts";
import { OTHER_STAFF_EMAIL } from "../integration/admin-helpers.ts";
import { buyUntilCheckout, expectToast, payOnCheckout } from "./purchase-support.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const BUYER = "console-buyer@example.com";

describe("the staff console in a real browser", () => {
  let server: TestServer;
  let browser: Browser;
  let admin: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await admin?.close();
    await browser?.close();
    await server?.stop();
  });

  /** How many .eml files the mail worker has written to the buyer. */
  async function emailsToBuyer(): Promise<number> {
    const outbox = path.join(server.dataDir, "outbox");
    const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
      name.endsWith(".eml"),
    );
    let count = 0;
    for (const name of names)
      if ((await fs.readFile(path.join(outbox, name), "utf8")).includes(`To: ${BUYER}`)) count++;
    return count;
  }

  async function confirm(page: Page, scope: Locator, label: string, reason: string) {
    await scope.getByRole("button", { name: label, exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (kept in the audit log)").fill(reason);
    await dialog.getByRole("button", { name: label, exact: true }).click();
  }

  it("dashboard → search → resend the config, revoke device 1, refund → the audit log lists the three with their reasons", async () => {
    const buyer = await browser.newContext();
    const buyPage = await buyer.newPage();
    await buyUntilCheckout(buyPage, server.url, findPlan("pro-monthly")!, BUYER);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await expectToast(buyPage, "Payment Successful");
    await buyer.close();
    const [subscription] = await server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, BUYER));
    const [device] = await server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    const link = downloadUrl(server.services, device!);
    expect((await fetch(link)).status).toBe(200);

    admin = await browser.newContext();
    const page = await admin.newPage();
    await signUpAndConfirm(page, server, STAFF_EMAIL);
    await page.waitForURL(`${server.url}/admin/blog`);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await waitForHydration(page);
    const paidOrders = page.getByRole("row", { name: /^Paid orders/ });
    expect(await paidOrders.getByRole("cell").allInnerTexts()).toEqual(["1", "1", "1"]);
    const revenue = page.getByRole("row", { name: /^Revenue \(USD\)/ });
    expect(await revenue.getByRole("cell").first().innerText()).toBe(findPlan("pro-monthly")!.price);

    const [answer] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === "/api/admin/search"),
      page.getByLabel("Search orders and subscriptions").pressSequentially("console-buy", { delay: 20 }),
    ]);
    expect(answer.status()).toBe(200);
    await page.getByText("1 result for “console-buy”").waitFor();
    await page.getByRole("link", { name: `active subscription of ${BUYER}` }).click();
    await page.waitForURL(`${server.url}/admin/subscriptions/${subscription!.id}`);
    await waitForHydration(page);
    await page.getByRole("heading", { level: 1, name: /^Subscription / }).waitFor();
    await expect.poll(emailsToBuyer, { timeout: 10_000 }).toBeGreaterThan(0);
    const before = await emailsToBuyer();

    const deviceRow = page.getByRole("region", { name: "Devices" }).getByRole("listitem").first();
    await confirm(page, deviceRow, "Resend config", "customer lost the first e-mail");
    await toast(page, "Config e-mail queued").waitFor();
    await expect.poll(emailsToBuyer, { timeout: 10_000 }).toBe(before + 1);

    await confirm(page, deviceRow, "Revoke", "laptop was stolen");
    await toast(page, "Device revoked").waitFor();
    await deviceRow.getByText(/^Revoked /).waitFor();
    expect((await fetch(link)).status).toBe(410);

    await confirm(page, page.locator("body"), "Refund", "customer asked within 7 days");
    await toast(page, "Refunded").waitFor();
    await expect.poll(() => page.getByTestId("subscription-status").innerText()).toBe("refunded");
    const after = await server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    expect(after.every((row) => row.revokedAt !== null)).toBe(true);

    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit log" }).click();
    await page.locator("tbody tr").first().waitFor();
    const rows = await page.locator("tbody tr").allInnerTexts();
    const expected = [
      ["subscription.refund", "customer asked within 7 days"],
      ["device.revoke", "laptop was stolen"],
      ["device.resend-config", "customer lost the first e-mail"],
    ];
    for (const [index, [action, reason]] of expected.entries()) {
      expect(rows[index]).toContain(action);
      expect(rows[index]).toContain(reason);
      expect(rows[index]).toContain(STAFF_EMAIL);
    }
  });

  it("shows an editor the Blog section only, and refuses the operations pages", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, server, OTHER_STAFF_EMAIL);
    await page.waitForURL(`${server.url}/admin/blog`);
    const nav = page.getByRole("navigation", { name: "Admin" });
    await nav.getByRole("link", { name: "Blog" }).waitFor();
    expect(await nav.getByRole("link").allInnerTexts()).toEqual(["Blog"]);
    await page.getByRole("heading", { name: "Blog Admin" }).waitFor();
    const refused = await page.goto(`${server.url}/admin/subscriptions`);
    expect(refused!.status()).toBe(403);
    await page.getByRole("heading", { name: "Not available to your role" }).waitFor();
    await context.close();
  });

  async function axeViolations(page: Page) {
    await page.evaluate(await fs.readFile(AXE_SOURCE_PATH, "utf8"));
    return page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
        }
      ).axe;
      const result = await axe.run();
      return result.violations.map(
        (violation) =>
          `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target).slice(0, 3))}`,
      );
    });
  }

  it.each([
    ["390 px", { width: 390, height: 800 }],
    ["desktop", { width: 1280, height: 800 }],
  ])(
    "axe-core finds no violation on any console page, and none is wider than the screen (%s)",
    async (_name, viewport) => {
      expect(admin, "the first test signs the admin in").toBeDefined();
      const page = await admin.newPage();
      await page.setViewportSize(viewport);
      const [subscription] = await server.services.db
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(eq(subscriptions.customerEmail, BUYER));
      const problems: string[] = [];
      for (const address of [
        "/admin",
        "/admin/orders?q=console-buyer",
        "/admin/subscriptions",
        `/admin/subscriptions/${subscription!.id}`,
        "/admin/messages",
        "/admin/blog",
        "/admin/audit",
      ]) {
        await page.goto(`${server.url}${address}`);
        await waitForHydration(page);
        problems.push(...(await axeViolations(page)).map((problem) => `${address}: ${problem}`));
        const overflow = await page.evaluate(() => document.body.scrollWidth - window.innerWidth);
        expect(overflow, `${address} is wider than the screen`).toBeLessThanOrEqual(0);
      }
      await page.close();
      expect(problems).toEqual([]);
    },
  );
});
