// The staff dashboard and search in a real browser (issue 15, decision 076): an admin sees the
// order just bought, finds it by typing part of the e-mail, and follows the result to its
// subscription; axe-core on the dashboard and the two lists at 390 px and desktop width.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#app/lib/plans.ts";
import { subscriptions } from "#server/db/schema/index.ts";
import { freePort, signUpAndConfirm, STAFF_EMAIL } from "../support/admin-browser.ts";
import { startTestServer, type TestServer } from "../support/app.ts";
import { launchBrowser, waitForHydration } from "../support/browser.ts";
import { buyUntilCheckout, expectToast, payOnCheckout } from "./purchase-support.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const BUYER = "dashboard-buyer@example.com";

describe("the staff dashboard and search", () => {
  let server: TestServer;
  let browser: Browser;
  let staff: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await staff?.close();
    await browser?.close();
    await server?.stop();
  });

  it("shows the order just bought, finds it by part of the e-mail as the admin types, and links to its subscription", async () => {
    const buyer = await browser.newContext();
    const buyPage = await buyer.newPage();
    await buyUntilCheckout(buyPage, server.url, findPlan("pro-monthly")!, BUYER);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await expectToast(buyPage, "Payment Successful");
    await buyer.close();

    staff = await browser.newContext();
    const page = await staff.newPage();
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
      page.getByLabel("Search orders and subscriptions").pressSequentially("dashboard-buy", { delay: 20 }),
    ]);
    expect(answer.status()).toBe(200);
    await page.getByText("1 result for “dashboard-buy”").waitFor();
    expect(page.url()).toBe(`${server.url}/admin`);

    const [subscription] = await server.services.db
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, BUYER));
    const link = page.getByRole("link", { name: `active subscription of ${BUYER}` });
    expect(await link.getAttribute("href")).toBe(`/admin/subscriptions/${subscription!.id}`);
    await link.click();
    await page.waitForURL(`${server.url}/admin/subscriptions/${subscription!.id}`);
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
    "axe-core finds no violation on the dashboard, orders and subscriptions (%s)",
    async (_name, viewport) => {
      expect(staff, "the first test signs the admin in").toBeDefined();
      const page = await staff.newPage();
      await page.setViewportSize(viewport);
      const problems: string[] = [];
      for (const path of ["/admin", "/admin/orders?q=dashboard-buyer", "/admin/subscriptions"]) {
        await page.goto(`${server.url}${path}`);
        await waitForHydration(page);
        problems.push(...(await axeViolations(page)).map((problem) => `${path}: ${problem}`));
        const overflow = await page.evaluate(() => document.body.scrollWidth - window.innerWidth);
        expect(overflow, `${path} is wider than the screen`).toBeLessThanOrEqual(0);
      }
      await page.close();
      expect(problems).toEqual([]);
    },
  );
});
