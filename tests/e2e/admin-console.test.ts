// The staff console as staff use it (issues 15 and 24): an admin signs in, sees on the dashboard the
// order just bought through the built-in checkout, finds it by typing part of the e-mail, resends its
// config, revokes device 1 and refunds it — the buyer is e-mailed, the buyer's success page and
// /account say refunded, the dashboard's net revenue drops — and reads the three actions with their
// reasons in the audit log, each linked to what it touched; an editor sees the Blog section only. On a phone the
// menu is a drawer, the order is found by the buyer's name, its address wraps only between words,
// and the CSV export downloads. A width check covers every console page at 390 px, 360 px and on a desktop; axe-core the last two.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routeConfig from "#app/routes.ts";
import { formatLongDate } from "#core/format.ts";
import { findPlan } from "#core/plans.ts";
import { blogPosts, chargeReversals, devices, subscriptions } from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { signInLinkFromOutboxFiles } from "../support/account.ts";
import { insertPosts } from "../support/blog.ts";
import { signUpAndConfirm, STAFF_EMAIL, toast } from "../support/admin-browser.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { OTHER_STAFF_EMAIL } from "../support/staff.ts";
import { buyUntilCheckout, expectToast, open, payOnCheckout } from "../support/purchase-browser.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const BUYER = "console-buyer.with-a-long-name@example-company.co.uk";

interface RouteEntry {
  path?: string;
  children?: RouteEntry[];
}
const routePaths = (entries: readonly RouteEntry[]): string[] =>
  entries.flatMap((entry) => [
    ...(entry.path === undefined ? [] : [entry.path]),
    ...routePaths(entry.children ?? []),
  ]);
/** Every page of the console in the route table (a new one is covered without a word here). */
const CONSOLE_PAGES = routePaths(routeConfig as RouteEntry[])
  .filter((route) => /^admin(\/|$)/.test(route) && route !== "admin/login")
  .map((route) => `/${route}`);

describe("the staff console in a real browser", () => {
  const app = useBrowserApp({ ownUrl: true });
  let admin: BrowserContext;

  beforeAll(async () => {
    // The editor page of a post is among the console's pages.
    await insertPosts(app.server.services.db, [{ title: "Console post", slug: "console-post" }]);
  });
  afterAll(async () => {
    await admin?.close();
  });

  /** The .eml files the mail worker has written to the buyer, each as its text. */
  async function emailFilesToBuyer(): Promise<string[]> {
    const outbox = path.join(app.server.dataDir, "outbox");
    const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
      name.endsWith(".eml"),
    );
    const texts = await Promise.all(names.map((name) => fs.readFile(path.join(outbox, name), "utf8")));
    return texts.filter((text) => text.includes(`To: ${BUYER}`));
  }

  /** How many .eml files the mail worker has written to the buyer. */
  async function emailsToBuyer(): Promise<number> {
    return (await emailFilesToBuyer()).length;
  }

  async function confirm(page: Page, scope: Locator, label: string, reason: string) {
    await scope.getByRole("button", { name: label, exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Reason (kept in the audit log)").fill(reason);
    await dialog.getByRole("button", { name: label, exact: true }).click();
  }

  it("dashboard → search → resend the config, revoke device 1, refund (the buyer is e-mailed, the success page and /account say refunded, net revenue drops) → the audit log lists the three with their reasons", async () => {
    const buyer = await app.browser.newContext();
    const buyPage = await buyer.newPage();
    await buyUntilCheckout(buyPage, app.server.url, findPlan("pro-monthly")!, BUYER);
    await payOnCheckout(buyPage, "4242 4242 4242 4242");
    await expectToast(buyPage, "Payment Successful");
    const successPage = buyPage.url();
    const [subscription] = await app.server.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, BUYER));
    const [device] = await app.server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    const link = downloadUrl(app.server.services, device!);
    expect((await fetch(link)).status).toBe(200);

    admin = await app.browser.newContext();
    const page = await admin.newPage();
    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await waitForHydration(page);
    const paidOrders = page.getByRole("row", { name: /^Paid orders/ });
    expect(await paidOrders.getByRole("cell").allInnerTexts()).toEqual(["1", "1", "1"]);
    const netRevenue = page.getByRole("row", { name: /^Net revenue \(USD\)/ });
    expect(await netRevenue.getByRole("cell").first().innerText()).toBe(findPlan("pro-monthly")!.price);

    const [answer] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === "/admin/orders.data"),
      page.getByLabel("Search orders and subscriptions").pressSequentially("console-buy", { delay: 20 }),
    ]);
    expect(answer.status()).toBe(200);
    await page.getByText("1 result for “console-buy”").waitFor();
    await page.getByRole("link", { name: `Active subscription of ${BUYER}` }).click();
    await page.waitForURL(`${app.server.url}/admin/subscriptions/${subscription!.id}`);
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
    const deviceId = device!.id;
    await toast(page, "Refunded").waitFor();
    await expect.poll(() => page.getByTestId("subscription-status").innerText()).toBe("Refunded");
    // The page offers no action on a refunded subscription.
    await page.getByTestId("no-staff-actions").waitFor();
    expect(await page.getByRole("button", { name: "Refund", exact: true }).count()).toBe(0);
    const after = await app.server.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscription!.id));
    expect(after.every((row) => row.revokedAt !== null)).toBe(true);
    const [reversal] = await app.server.services.db
      .select()
      .from(chargeReversals)
      .where(eq(chargeReversals.subscriptionId, subscription!.id));
    const refundedOn = formatLongDate(reversal!.appliedAt);

    // The buyer is e-mailed the refund: the amount, and where to buy again.
    const price = findPlan("pro-monthly")!.price;
    await expect
      .poll(async () => (await emailFilesToBuyer()).filter((text) => text.includes("is refunded")).length, {
        timeout: 10_000,
      })
      .toBe(1);
    const refundEmail = (await emailFilesToBuyer())
      .find((text) => text.includes("is refunded"))!
      .replace(/=\r?\n/g, "");
    expect(refundEmail).toContain(`Amount refunded: ${price}`);
    expect(refundEmail).toContain(`${app.server.url}/pricing`);

    // The buyer's success page says refunded, with the date and a way to support; no failure shown.
    await buyPage.goto(successPage);
    await buyPage.getByRole("heading", { name: `Refunded on ${refundedOn}` }).waitFor();
    expect(await buyPage.getByRole("link", { name: "Contact Support" }).getAttribute("href")).toBe(
      "/contact",
    );
    expect(await buyPage.getByText("Verification Failed").count()).toBe(0);
    expect(await buyPage.getByText("Invalid Payment Session").count()).toBe(0);
    expect(await axeViolations(buyPage)).toEqual([]);

    // So does /account, signed in by the e-mailed link.
    await open(buyPage, `${app.server.url}/account`);
    await buyPage.getByLabel("E-mail address").fill(BUYER);
    await buyPage.getByRole("button", { name: "Email me a sign-in link" }).click();
    await buyPage.getByTestId("sign-in-sent").waitFor();
    await open(buyPage, await signInLinkFromOutboxFiles(app.server.dataDir, BUYER));
    await buyPage.getByRole("button", { name: "Sign in", exact: true }).click();
    await buyPage.waitForURL(`${app.server.url}/account`);
    expect(await buyPage.getByTestId("subscription-status").innerText()).toBe(`Refunded on ${refundedOn}`);
    const notice = buyPage.getByTestId("reversed-notice");
    expect(await notice.innerText()).toContain(`Refunded on ${refundedOn}`);
    expect(await notice.getByRole("link", { name: "Contact support" }).getAttribute("href")).toBe("/contact");
    await buyer.close();

    // The dashboard's net revenue dropped by the refund; gross and refunded show both.
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await expect.poll(() => netRevenue.getByRole("cell").first().innerText()).toBe("$0.00");
    const firstCell = (label: RegExp) => page.getByRole("row", { name: label }).getByRole("cell").first();
    expect(await firstCell(/^Gross revenue \(USD\)/).innerText()).toBe(price);
    expect(await firstCell(/^Refunded \(USD\)/).innerText()).toBe(price);

    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit log" }).click();
    // The subscription page has a table too: read rows only once the audit log's own table is shown.
    await page.waitForURL(`${app.server.url}/admin/audit`);
    const auditTable = page.getByRole("region", { name: "Audit entries" });
    await auditTable.locator("tbody tr").first().waitFor();
    const rows = await auditTable.locator("tbody tr").allInnerTexts();
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
    // Each entry links to what it touched: the subscription, and a device on its subscription's page.
    const targets = auditTable.locator("tbody tr").getByRole("link");
    expect(await targets.nth(0).getAttribute("href")).toBe(`/admin/subscriptions/${subscription!.id}`);
    expect(await targets.nth(1).getAttribute("href")).toBe(
      `/admin/subscriptions/${subscription!.id}#device-${deviceId}`,
    );
    await targets.nth(1).click();
    await page.waitForURL(`${app.server.url}/admin/subscriptions/${subscription!.id}#device-${deviceId}`);
    await page.locator(`#device-${deviceId}`).waitFor();
  });

  it("shows an editor the Blog section only, and refuses the operations pages", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    await signUpAndConfirm(page, app.server, OTHER_STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
    const nav = page.getByRole("navigation", { name: "Admin" });
    await nav.getByRole("link", { name: "Blog" }).waitFor();
    expect(await nav.getByRole("link").allInnerTexts()).toEqual(["Blog"]);
    await page.getByRole("heading", { name: "Blog Admin" }).waitFor();
    const refused = await page.goto(`${app.server.url}/admin/subscriptions`);
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

  it("on a phone: the menu is a drawer that opens and closes, the buyer's name finds the order, the address wraps only between words, and the CSV downloads", async () => {
    expect(admin, "the first test signs the admin in").toBeDefined();
    const page = await admin.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.server.url}/admin`);
    await waitForHydration(page);
    const menu = page.getByRole("button", { name: "Menu" });
    // The sidebar is hidden on a phone: the drawer holds the navigation.
    expect(await page.getByRole("navigation", { name: "Admin" }).count()).toBe(0);
    await menu.click();
    const drawer = page.getByRole("dialog", { name: "Admin menu" });
    await drawer.waitFor();
    await expect.poll(() => drawer.evaluate((node) => node.contains(document.activeElement))).toBe(true);
    expect(await drawer.getByRole("navigation", { name: "Admin" }).getByRole("link").allInnerTexts()).toEqual(
      ["Dashboard", "Orders", "Subscriptions", "Servers", "Messages", "Blog", "Audit log"],
    );
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden" });
    await expect.poll(() => menu.evaluate((node) => node === document.activeElement)).toBe(true);
    await menu.click();
    await drawer.getByRole("button", { name: "Close" }).click();
    await drawer.waitFor({ state: "hidden" });
    await menu.click();
    await drawer.getByRole("link", { name: "Orders" }).click();
    await page.waitForURL(`${app.server.url}/admin/orders`);
    await drawer.waitFor({ state: "hidden" });

    // buyUntilCheckout typed "Ada" and "Obi" on the details step.
    await page.getByLabel("Search orders and subscriptions").fill("obi ada");
    await page.getByText("1 result for “obi ada”").waitFor();
    const card = page.getByRole("list", { name: "Results" }).getByRole("listitem");
    await card.getByText("Ada Obi", { exact: true }).waitFor();
    // Where the browser broke the address into lines: only before "@" or a dot, or after a hyphen.
    const lines = await card.getByText(BUYER, { exact: true }).evaluate((node) => {
      const range = document.createRange();
      const text = node.textContent ?? "";
      const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
      const tops: number[] = [];
      for (let current = walker.nextNode(); current; current = walker.nextNode())
        for (let offset = 0; offset < (current.textContent ?? "").length; offset++) {
          range.setStart(current, offset);
          range.setEnd(current, offset + 1);
          tops.push(Math.round(range.getBoundingClientRect().top));
        }
      const result: string[] = [""];
      tops.forEach((top, index) => {
        if (index > 0 && top > tops[index - 1]!) result.push("");
        result[result.length - 1] = `${result.at(-1) ?? ""}${text[index] ?? ""}`;
      });
      return result;
    });
    expect(lines.join("")).toBe(BUYER);
    expect(lines.length, "the address is wider than the card: it must wrap").toBeGreaterThan(1);
    for (let index = 1; index < lines.length; index++) {
      const allowed = /^[@.]/.test(lines[index]!) || lines[index - 1]!.endsWith("-");
      expect(allowed, `broken mid-word: ${lines.join(" | ")}`).toBe(true);
    }

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page
        .getByRole("form", { name: "Export orders as CSV" })
        .getByRole("button", { name: "Export CSV" })
        .click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      /^naijalink-orders-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const csv = await fs.readFile((await download.path())!, "utf8");
    expect(csv.split("\r\n")[0]).toContain("ordered_at,order_status");
    expect(csv).toContain(BUYER);
    await page.close();
  });

  // axe-core at the narrowest phone and on a desktop; at 390 px only the width is checked, as
  // the layout is the 360 px one with more room.
  it.each([
    ["390 px", { width: 390, height: 800 }, false],
    ["360 px", { width: 360, height: 740 }, true],
    ["desktop", { width: 1280, height: 800 }, true],
  ])(
    "no console page is wider than the screen (%s), and axe-core finds no violation where it runs",
    async (_name, viewport, withAxe) => {
      expect(admin, "the first test signs the admin in").toBeDefined();
      const page = await admin.newPage();
      await page.setViewportSize(viewport);
      const [subscription] = await app.server.services.db
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(eq(subscriptions.customerEmail, BUYER));
      const [post] = await app.server.services.db.select({ id: blogPosts.id }).from(blogPosts);
      const addresses = CONSOLE_PAGES.map((route) =>
        route
          .replace("/admin/blog/edit/:id", `/admin/blog/edit/${post!.id}`)
          .replace("/admin/subscriptions/:id", `/admin/subscriptions/${subscription!.id}`),
      );
      expect(addresses.filter((address) => address.includes(":"))).toEqual([]);
      // The lists with rows in them, as well as empty.
      addresses.push(`/admin/orders?q=${encodeURIComponent(BUYER)}`, "/admin/audit?targetType=subscription");
      const problems: string[] = [];
      for (const address of addresses) {
        await page.goto(`${app.server.url}${address}`);
        await waitForHydration(page);
        if (withAxe) problems.push(...(await axeViolations(page)).map((problem) => `${address}: ${problem}`));
        // The document, not only the body: a wide child of <html> scrolls the page too.
        const width = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(width, `${address} is wider than the screen`).toBeLessThanOrEqual(0);
      }
      await page.close();
      expect(problems).toEqual([]);
    },
  );
});
