// Decision 012: the marketing pages are static documents. They ship no React, load one small
// enhancement script, and that script does everything React's handlers did there.
import { describe, expect, it } from "vitest";
import { PLANS } from "#core/plans.ts";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { useBrowserApp, waitForHydration, waitForStaticDocument } from "../support/browser.ts";
import { MARKETING_PAGES } from "../support/routes.ts";

const STATIC_PAGES = [...MARKETING_PAGES, "/no/such/page"];

const ENHANCEMENT_SCRIPT = /^\/assets\/enhance-[0-9a-f]{10}\.js$/;

describe("the static marketing pages in a real browser", () => {
  const app = useBrowserApp();

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

  it("says the contact form's errors in an alert region under its button, there before them, without toasts", async () => {
    const { page } = await openRecordingScripts("/contact");
    const form = page.getByRole("form", { name: "Contact form" });
    // Both regions exist, empty, once the page is enhanced, so what they later say is announced.
    expect(await form.getByRole("alert").count()).toBe(1);
    expect(await form.getByRole("status").count()).toBe(1);
    expect(await form.getByRole("alert").innerText()).toBe("");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect
      .poll(() => form.getByRole("alert").locator("p").allInnerTexts())
      .toEqual(["Error", "Please fill in all fields."]);
    expect(await page.locator("[data-sonner-toaster], [data-sonner-toast]").count()).toBe(0);
    // No copied toast stylesheet: the page's only stylesheet is the app's.
    expect(await page.evaluate(() => document.querySelectorAll("style").length)).toBe(0);
    await page.close();
  });

  /** The flash cookie as the server signs it, for the browser to send. */
  const signedFlash = (flash: Flash) => {
    const [pair] = flashCookie(app.server.services, flash).split(";");
    return { name: "flash", value: pair!.slice("flash=".length), url: app.server.url, httpOnly: true };
  };

  it("shows a flash left by a redirect once, at the top of the page, rendered by the server, and clears its cookie", async () => {
    const context = await app.browser.newContext();
    const flash: Flash = {
      type: "error",
      title: "Access Denied",
      description: "You don't have permission to access this page.",
    };
    await context.addCookies([signedFlash(flash)]);
    const page = await context.newPage();
    const response = await page.goto(`${app.server.url}/pricing`);
    // Rendered for this request, not the page kept for everyone.
    expect(await response!.headerValue("x-page-cache")).toBeNull();
    expect(await response!.text()).toContain(flash.title);
    await waitForHydration(page);
    const alert = page.locator("main > [data-page-notice]:first-child").getByRole("alert");
    expect(await alert.locator("p").allInnerTexts()).toEqual([flash.title, flash.description]);
    expect((await context.cookies()).some((cookie) => cookie.name === "flash")).toBe(false);
    await page.reload();
    await waitForHydration(page);
    expect(await page.locator("[data-page-notice]").count()).toBe(0);
    await context.close();
  });

  it("shows nothing for a flash cookie the server did not sign, or one altered after it was", async () => {
    const context = await app.browser.newContext();
    const forged: Flash = { type: "error", title: "Your session expired: call +1-555-0100" };
    const genuine = signedFlash({ type: "error", title: "Access Denied" });
    const [payload, signature] = genuine.value.split(".");
    const altered = Buffer.from(JSON.stringify(forged)).toString("base64url");
    for (const value of [encodeURIComponent(JSON.stringify(forged)), `${altered}.${signature}`, payload!]) {
      await context.addCookies([{ name: "flash", value, url: app.server.url }]);
      for (const pathname of ["/pricing", "/get-started"]) {
        const page = await context.newPage();
        const response = await page.goto(`${app.server.url}${pathname}`);
        expect(await response!.text()).not.toContain("+1-555-0100");
        await waitForHydration(page);
        expect(await page.locator("[data-page-notice], [data-sonner-toast]").count()).toBe(0);
        expect(await page.content()).not.toContain("+1-555-0100");
        await page.close();
      }
    }
    await context.close();
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
    // The smooth scroll is an animation: under load it outlasts any poll. Its end is the state
    // the position assertion needs, so the test waits for the browser's own scrollend.
    const scroll = await page.evaluateHandle(() => ({
      ended: new Promise<void>((resolve) => addEventListener("scrollend", () => resolve(), { once: true })),
    }));
    await page.locator("#mobile-menu").getByRole("link", { name: "How It Works" }).click();
    await page.locator("#mobile-menu").waitFor({ state: "detached" });
    await scroll.evaluate((handle) => handle.ended);
    expect(
      await page.evaluate(() => document.getElementById("how-it-works")!.getBoundingClientRect().top),
    ).toBeLessThan(120);
    expect(new URL(page.url()).hash).toBe("#how-it-works");
    await page.close();
  });

  it("shows a flash on a hydrated page as a sonner toast, read and cleared by the server", async () => {
    const context = await app.browser.newContext();
    const flash: Flash = { type: "success", title: "Saved", description: "Shown once on the next page." };
    await context.addCookies([signedFlash(flash)]);
    const page = await context.newPage();
    const response = await page.goto(`${app.server.url}/get-started`);
    expect(await response!.headerValue("set-cookie")).toMatch(/^flash=; Path=\/; Max-Age=0/);
    await waitForHydration(page);
    const toast = page.locator("[data-sonner-toast]");
    await expect.poll(() => toast.innerText()).toContain(flash.title);
    expect(await toast.innerText()).toContain(flash.description);
    expect(await toast.getAttribute("data-type")).toBe("success");
    expect((await context.cookies()).some((cookie) => cookie.name === "flash")).toBe(false);
    await context.close();
  });

  it("a client-side link from a hydrated not-found page opens the static home page as a document", async () => {
    const { page } = await openRecordingScripts("/checkout/no-such-session");
    expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(true);
    await page.getByRole("link", { name: "Return to Home" }).click();
    await page.waitForURL(`${app.server.url}/`);
    await waitForStaticDocument(page);
    expect(await page.locator('script[src^="/assets/enhance-"]').count()).toBe(1);
    await page.close();
  });

  it("a client-side link from a hydrated page opens a static page as a document", async () => {
    const { page } = await openRecordingScripts("/payment-success");
    await page.getByRole("link", { name: "View Plans" }).click();
    await page.waitForURL(`${app.server.url}/pricing`);
    await waitForStaticDocument(page);
    // And the page works: its plan buttons are enhanced.
    await page.locator('[data-plan-id="unlock"]').getByRole("button", { name: "Get Started" }).click();
    await expect
      .poll(() => page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null")?.id))
      .toBe("unlock");
    await page.close();
  });
});
