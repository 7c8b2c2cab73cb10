import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { PAGE_ROUTES } from "../support/routes.ts";

describe("the shared layout in a real browser", () => {
  const app = useBrowserApp();

  /** The anchor is where a scroll to it ends: 80 px below the fixed bar, or as far as the page can go. */
  function scrolledTo(page: Page, anchor: string) {
    return page.evaluate((id) => {
      const target = document.getElementById(id)!;
      const wanted = Math.min(
        target.getBoundingClientRect().top + window.scrollY - 80,
        document.documentElement.scrollHeight - window.innerHeight,
      );
      return window.scrollY > 0 && Math.abs(window.scrollY - wanted) < 4;
    }, anchor);
  }

  async function open(path: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await app.browser.newPage({ viewport });
    await page.goto(`${app.server.url}${path}`);
    await waitForHydration(page);
    return page;
  }

  it("shows every route's heading with the navigation and the footer", async () => {
    const page = await app.browser.newPage();
    for (const { path, heading } of PAGE_ROUTES) {
      await page.goto(`${app.server.url}${path}`);
      await expect
        .poll(() => page.locator("h1").allInnerTexts(), { timeout: 10_000 })
        .toEqual(
          expect.arrayContaining([typeof heading === "string" ? heading : expect.stringMatching(heading)]),
        );
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const label of ["Pricing", "How It Works", "Tutorial", "Blog", "Contact"]) {
        await expect.poll(() => nav.getByRole("link", { name: label, exact: true }).count()).toBe(1);
      }
      await expect.poll(() => nav.getByRole("link", { name: "Get Started" }).count()).toBe(1);
      const footer = page.locator("footer");
      // The footer's links of docs/product.md §2.2 in its order, then one's account (issue 14) and the reviews (issue 17).
      expect(await footer.getByRole("link").allInnerTexts()).toEqual([
        "Blog",
        "Terms of Service",
        "Privacy Policy",
        "Refund Policy",
        "Contact",
        "My account",
        "Reviews",
      ]);
      expect(await footer.getByRole("link", { name: "My account" }).getAttribute("href")).toBe("/account");
      expect(await footer.getByRole("link", { name: "Reviews" }).getAttribute("href")).toBe("/reviews");
      expect(await nav.getByRole("link", { name: "My account" }).count()).toBe(0);
      expect(await footer.getByRole("link", { name: "Contact", exact: true }).getAttribute("href")).toBe(
        "mailto:support@naijalink.example",
      );
      expect(await footer.innerText()).toContain(
        "Prices are in USD, Instant Config Delivery, 7-Day Guarantee",
      );
      expect(await footer.innerText()).toContain("2024");
    }
    await page.close();
  });

  it("opens the mobile menu and closes it when a link is chosen", async () => {
    const page = await open("/", { width: 375, height: 740 });
    const toggle = page.getByRole("button", { name: "Open menu" });
    expect(
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Tutorial" })
        .isVisible(),
    ).toBe(false);
    await toggle.click();
    const menu = page.locator("#mobile-menu");
    await menu.waitFor({ state: "visible" });
    expect(await page.getByRole("button", { name: "Close menu" }).getAttribute("aria-expanded")).toBe("true");
    await menu.getByRole("link", { name: "Tutorial" }).click();
    await page.waitForURL(`${app.server.url}/tutorial`);
    await menu.waitFor({ state: "detached" });
    expect(await page.getByRole("button", { name: "Open menu" }).getAttribute("aria-expanded")).toBe("false");
    await page.close();
  });

  it("scrolls to an anchor on the home page without leaving it", async () => {
    const page = await open("/");
    await page.evaluate(() => {
      (window as unknown as { marker: boolean }).marker = true;
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "How It Works" }).click();
    await expect.poll(() => scrolledTo(page, "how-it-works")).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { marker?: boolean }).marker)).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/");
    await page.close();
  });

  it("navigates from another page to the home page plus the anchor", async () => {
    const page = await open("/blog");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Pricing" }).click();
    await page.waitForURL(`${app.server.url}/#pricing`);
    await expect.poll(() => scrolledTo(page, "pricing")).toBe(true);
    await page.close();
  });

  it("leads from the footer of a static and of a hydrated page to the account sign-in", async () => {
    for (const start of ["/", "/get-started"]) {
      const page = await open(start);
      await page.locator("footer").getByRole("link", { name: "My account" }).click();
      await page.waitForURL(`${app.server.url}/account`);
      await expect.poll(() => page.getByRole("heading", { name: "Sign in" }).count()).toBe(1);
      await page.close();
    }
  });

  it("starts every new path at the top of the page", async () => {
    const page = await open("/");
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
    await page.locator("footer").getByRole("link", { name: "Privacy Policy" }).click();
    await page.waitForURL(`${app.server.url}/privacy`);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await page.close();
  });

  it("shows the not-found page for an unknown path", async () => {
    const page = await app.browser.newPage();
    const response = await page.goto(`${app.server.url}/definitely/not/here`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("h1").innerText()).toBe("Oops! Page not found");
    await page.getByRole("link", { name: "Return to Home" }).click();
    await page.waitForURL(`${app.server.url}/`);
    await page.close();
  });
});
