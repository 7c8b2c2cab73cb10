// Decision 012: the marketing pages are static documents. They ship no React, load one small
// enhancement script, and that script does everything React's handlers did there.
import { describe, expect, it } from "vitest";
import { PLANS } from "#app/lib/plans.ts";
import { useServerAndBrowser, waitForHydration } from "../support/browser.ts";
import { MARKETING_PAGES } from "../support/routes.ts";

const STATIC_PAGES = [...MARKETING_PAGES, "/no/such/page"];

const ENHANCEMENT_SCRIPT = /^\/assets\/enhance-[0-9a-f]{10}\.js$/;

describe("the static marketing pages in a real browser", () => {
  const app = useServerAndBrowser();

  /** Opens a page and records every script the browser requests. */
  async function openRecordingScripts(pathname: string, viewport = { width: 1280, height: 800 }) {
    const page = await app.browser.newPage({ viewport });
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    const response = await page.goto(`${app.server.url}${pathname}`);
    await waitForHydration(page);
    return { page, scripts, html: await response!.text() };
  }

  it.each(STATIC_PAGES)(
    "%s ships no React: no entry.client or modulepreload, and loads only the enhancement script",
    async (pathname) => {
      const { page, scripts, html } = await openRecordingScripts(pathname);
      expect(html).not.toContain("entry.client");
      expect(html).not.toContain("modulepreload");
      expect(html).not.toContain("__reactRouterContext");
      expect(scripts).toHaveLength(1);
      expect(scripts[0]).toMatch(ENHANCEMENT_SCRIPT);
      expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);
      await page.close();
    },
  );

  it("keeps the enhancement script small: under 8 KB compressed", async () => {
    const { page, scripts } = await openRecordingScripts("/");
    const response = await page.request.get(`${app.server.url}${scripts[0]}`, {
      headers: { "accept-encoding": "br" },
    });
    expect(response.headers()["content-encoding"]).toBe("br");
    expect(Number(response.headers()["content-length"])).toBeLessThan(8 * 1024);
    await page.close();
  });

  it("still hydrates the purchase flow with React", async () => {
    const { page, scripts } = await openRecordingScripts("/get-started");
    expect(scripts.some((script) => script.includes("entry.client"))).toBe(true);
    expect(scripts.some((script) => ENHANCEMENT_SCRIPT.test(script))).toBe(false);
    expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(true);
    await page.close();
  });

  it.each([
    ["/", "Get It Now", PLANS[0]!],
    ["/pricing", "Get Started", PLANS[1]!],
  ] as const)("%s: %s stores the plan and the details step shows it", async (pathname, label, plan) => {
    const { page } = await openRecordingScripts(pathname);
    await page.locator(`[data-plan-id="${plan.id}"]`).getByRole("button", { name: label }).click();
    await page.waitForURL(`${app.server.url}/get-started/details`, { timeout: 10_000 });
    await waitForHydration(page);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null"));
    // The whole catalogue entry, as the purchase pages' own storeSelectedPlan writes it.
    expect(stored).toEqual(JSON.parse(JSON.stringify(plan)));
    await page.getByTestId("plan-summary").getByText(plan.name, { exact: true }).waitFor();
    await page.close();
  });

  it("announces the toasts through a polite live region that is there before them, and closes them", async () => {
    const { page } = await openRecordingScripts("/contact");
    const region = page.locator('section[aria-live="polite"][aria-label^="Notifications"]');
    expect(await region.count()).toBe(1);
    expect(await region.locator("[data-sonner-toast]").count()).toBe(0);
    await page.getByRole("button", { name: "Send Message" }).click();
    const toast = region.locator("[data-sonner-toast]");
    await toast.waitFor({ state: "visible" });
    expect(await toast.innerText()).toContain("Please fill in all fields");
    expect(await toast.getAttribute("data-type")).toBe("error");
    await toast.getByRole("button", { name: "Close toast" }).click();
    await toast.waitFor({ state: "detached" });
    await page.close();
  });

  it("removes a toast by itself after a few seconds", async () => {
    const { page } = await openRecordingScripts("/contact");
    await page.getByRole("button", { name: "Send Message" }).click();
    const toast = page.locator("[data-sonner-toast]");
    await toast.waitFor({ state: "visible" });
    await toast.waitFor({ state: "detached", timeout: 8_000 });
    await page.close();
  });

  it("runs the phone menu by keyboard: Enter opens it, Tab reaches its links, Escape closes it", async () => {
    const { page } = await openRecordingScripts("/pricing", { width: 375, height: 740 });
    const toggle = page.getByRole("button", { name: "Open menu" });
    await toggle.focus();
    await page.keyboard.press("Enter");
    const menu = page.locator("#mobile-menu");
    await menu.waitFor({ state: "visible" });
    const close = page.getByRole("button", { name: "Close menu" });
    expect(await close.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("#mobile-menu") !== null)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Pricing");
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Open menu");
    await page.keyboard.press(" ");
    await menu.waitFor({ state: "visible" });
    await page.close();
  });

  it("closes the phone menu and scrolls when an anchor of the same page is chosen", async () => {
    const { page } = await openRecordingScripts("/", { width: 375, height: 740 });
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.locator("#mobile-menu").getByRole("link", { name: "How It Works" }).click();
    await page.locator("#mobile-menu").waitFor({ state: "detached" });
    await expect
      .poll(() => page.evaluate(() => document.getElementById("how-it-works")!.getBoundingClientRect().top))
      .toBeLessThan(120);
    expect(new URL(page.url()).hash).toBe("#how-it-works");
    await page.close();
  });

  it("a client-side link from a hydrated page opens a static page as a document", async () => {
    const { page } = await openRecordingScripts("/payment-success");
    await page.getByRole("link", { name: "View Plans" }).click();
    await page.waitForURL(`${app.server.url}/pricing`);
    await waitForHydration(page);
    expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);
    // And the page works: its plan buttons are enhanced.
    await page.locator('[data-plan-id="unlock"]').getByRole("button", { name: "Get Started" }).click();
    await expect
      .poll(() => page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null")?.id))
      .toBe("unlock");
    await page.close();
  });
});
