// The public marketing pages in a real browser: the product's texts, catalogue, 320 px layout, axe.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PLANS } from "#core/plans.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";
import { MARKETING_PAGES } from "../support/routes.ts";

const require = createRequire(import.meta.url);
const AXE_SOURCE_PATH = require.resolve("axe-core/axe.min.js");
const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../test-results/marketing-320");
const VIDEO_ID = "NaijaTest_01";

/** Expected words, copied from docs/product.md §1 to §4 rather than from the components. */
const SPEC_TEXTS: Record<string, Array<string | RegExp>> = {
  "/": [
    "Access Nigerian Content From Anywhere",
    "Get NaijaLink Now",
    "Get It Now",
    "Windows",
    "Mac",
    "Android",
    "iOS",
    "Linux",
    "Why Choose",
    "How It Works",
    /instant config delivery/i,
    /military-grade encryption/i,
    /zero-log policy/i,
    /servers tuned for streaming/i,
    /unlimited bandwidth/i,
    /4K streaming without buffering/i,
    /24\/7 support/i,
    /256-bit SSL/i,
    "Download WireGuard from the official app store",
    "Import the config file",
    "Start saving",
  ],
  "/pricing": [
    "Simple Pricing",
    "Choose Your Plan",
    /transparent pricing/i,
    "7-Day Guarantee",
    "Instant Setup Delivery",
    "Most Popular",
    "Best Value",
    "$95.88",
    "Save 17%",
    "Save $16",
    "Visa/Mastercard",
    "PayPal",
    "Bitcoin",
    "Refund Policy",
    /subject to local taxes where applicable/i,
    "Stop Overpaying for Subscriptions",
    "Trusted by thousands using these services",
    "Spotify",
    "Netflix",
    "YouTube",
    "DSTV",
    "Amazon",
    "Apple",
  ],
  "/how-it-works": [
    "How NaijaLink Works",
    "Download WireGuard from the official app store",
    "Import the config file",
    "Start saving",
    "The Complete Process",
    "Why Choose",
    /encryption/i,
    /4K streaming without buffering/i,
    /global access/i,
    "iOS",
    "Android",
    "Windows",
    "Mac",
    "Linux",
  ],
  "/tutorial": [
    "WireGuard",
    "App Store",
    "Play Store",
    "WireGuard website",
    ".conf",
    "Add Tunnel",
    /toggle/i,
  ],
  "/reviews": [
    "50,000+",
    /happy customers/i,
    "4.9/5",
    /average rating/i,
    "$2.5M+",
    /money saved/i,
    "120+",
    /countries served/i,
    "98%",
    /recommend/i,
  ],
  "/contact": [
    "24/7 Support",
    "Get in Touch",
    /support team/i,
    "support@naijalink.example",
    /24\/7/,
    "Full Name",
    "Email Address",
    "Subject",
    "Message",
    "Quick Answers",
    "Setup Guide",
    "Billing Help",
  ],
  "/terms": ["Terms and Conditions", "2 June 2025", /7-day guarantee/i, /24 hours/i, /72 hours/i],
  "/privacy": ["Privacy Policy", "2 June 2025", /zero-log/i],
  "/refund-policy": ["Refund Policy", "2 June 2025", /7-day guarantee/i, /activat/i, /72 hours/i],
};

const SAVINGS_FROM_SPEC = [
  ["Spotify Premium", "$1.80", "$9.99", "82%"],
  ["YouTube Premium", "$2.20", "$11.99", "82%"],
  ["Netflix Standard", "$5.80", "$15.49", "63%"],
  ["DSTV Premium", "$36.00", "$89.99", "60%"],
] as const;

describe("the marketing pages in a real browser", () => {
  const app = useBrowserApp({ env: { TUTORIAL_VIDEO_ID: VIDEO_ID } });

  async function open(pathname: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await app.browser.newPage({ viewport });
    // Nothing may leave this machine; a page that tries is caught by the tutorial test.
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    await page.goto(`${app.server.url}${pathname}`);
    await waitForHydration(page);
    return page;
  }

  // One visit per page checks both what it shows and what its head says.
  it.each(MARKETING_PAGES)(
    "%s shows the texts and numbers of docs/product.md, and has its own title, description, canonical link and Open Graph tags",
    async (pathname) => {
      const page = await open(pathname);
      const text = await page.locator("main").innerText();
      for (const expected of SPEC_TEXTS[pathname]!) {
        if (typeof expected === "string") expect(text, `${pathname} shows "${expected}"`).toContain(expected);
        else expect(text, `${pathname} matches ${expected}`).toMatch(expected);
      }
      const head = await page.evaluate(() => ({
        title: document.title,
        description: document.querySelector('meta[name="description"]')?.getAttribute("content"),
        canonical: document.querySelector('link[rel="canonical"]')?.getAttribute("href"),
        ogTitle: document.querySelector('meta[property="og:title"]')?.getAttribute("content"),
        ogUrl: document.querySelector('meta[property="og:url"]')?.getAttribute("content"),
        icon: document.querySelector('link[rel="icon"]')?.getAttribute("href"),
        manifest: document.querySelector('link[rel="manifest"]')?.getAttribute("href"),
      }));
      expect(head.title).toContain("NaijaLink");
      expect(head.description?.length).toBeGreaterThan(40);
      expect(head.description!.length).toBeLessThanOrEqual(160);
      expect(head.canonical).toBe(`${app.server.config.PUBLIC_URL}${pathname}`);
      expect(head.ogTitle).toBe(head.title);
      expect(head.ogUrl).toBe(head.canonical);
      for (const asset of [head.icon, head.manifest]) {
        const response = await page.request.get(`${app.server.url}${asset}`);
        expect(response.status(), `${asset} is served`).toBe(200);
      }
      await page.close();
    },
  );

  it("serves a web manifest whose icons all exist", async () => {
    const page = await app.browser.newPage();
    const manifest = (await (await page.request.get(`${app.server.url}/site.webmanifest`)).json()) as {
      name: string;
      icons: Array<{ src: string; sizes: string }>;
    };
    expect(manifest.name).toContain("NaijaLink");
    expect(manifest.icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    for (const src of [...manifest.icons.map((icon) => icon.src), "/apple-touch-icon.png"]) {
      expect((await page.request.get(`${app.server.url}${src}`)).status(), src).toBe(200);
    }
    await page.close();
  });

  it("gives every page a different title", async () => {
    const page = await app.browser.newPage();
    const titles = new Set<string>();
    for (const pathname of MARKETING_PAGES) {
      const html = await (await page.request.get(`${app.server.url}${pathname}`)).text();
      titles.add(/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "");
    }
    expect(titles.has("")).toBe(false);
    expect(titles.size).toBe(MARKETING_PAGES.length);
    await page.close();
  });

  it("shows each savings comparison of docs/product.md with its logo row", async () => {
    const page = await open("/pricing");
    for (const [service, nigeria, abroad, saving] of SAVINGS_FROM_SPEC) {
      const card = page.locator(`[data-service="${service}"]`);
      const text = await card.innerText();
      for (const value of [service, nigeria, abroad, saving]) expect(text).toContain(value);
      expect(await card.locator("svg").count()).toBe(1);
    }
    const logos = page.getByRole("list", { name: "Services" }).locator("li > span");
    expect(await logos.allInnerTexts()).toEqual(["Spotify", "Netflix", "YouTube", "DSTV", "Amazon", "Apple"]);
    // Inline SVG only: no logo is fetched from anywhere.
    expect(await page.locator("main img").count()).toBe(0);
    await page.close();
  });

  it.each(["/", "/pricing"])("%s shows every plan of the catalogue as it is", async (pathname) => {
    const page = await open(pathname);
    const cards = page.locator("[data-plan-id]");
    expect(await cards.count()).toBe(PLANS.length);
    for (const plan of PLANS) {
      const card = page.locator(`[data-plan-id="${plan.id}"]`);
      const text = await card.innerText();
      for (const value of [plan.name, plan.price, plan.period, plan.devices, ...plan.features]) {
        expect(text, `${plan.id} shows ${value}`).toContain(value);
      }
      for (const badge of plan.badges) expect(text, `${plan.id} shows ${badge}`).toContain(badge);
      if (plan.savings) expect(text).toContain(plan.savings);
      if (plan.originalPrice) expect(await card.locator("s").innerText()).toContain(plan.originalPrice);
      if (pathname === "/pricing") {
        expect(text).toContain("7-Day Guarantee");
        expect(text).toContain("Instant Setup Delivery");
      }
    }
    // The prices of docs/product.md §3.1, written out here rather than read from the catalogue.
    const prices = await cards.evaluateAll((nodes) =>
      nodes.map((node) => [node.getAttribute("data-plan-id"), node.textContent]),
    );
    const expected = {
      unlock: "$9.99",
      "basic-monthly": "$4.99",
      "pro-monthly": "$7.99",
      "pro-yearly": "$79.99",
    };
    for (const [id, text] of prices) expect(text).toContain(expected[id as keyof typeof expected]);
    await page.close();
  });

  it("the landing page's Get It Now stores the plan and opens the details step", async () => {
    const page = await open("/");
    await page.locator('[data-plan-id="pro-yearly"]').getByRole("button", { name: "Get It Now" }).click();
    await page.waitForURL(`${app.server.url}/get-started/details`);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null"));
    expect(stored).toMatchObject({ id: "pro-yearly", name: "Pro Yearly", price: "$79.99" });
    await page.close();
  });

  it("the pricing page's Get Started shows the welcome notice, then stores the plan and opens the details step", async () => {
    const page = await open("/pricing");
    await page.locator('[data-plan-id="pro-monthly"]').getByRole("button", { name: "Get Started" }).click();
    // The notice is written under the button that was pressed.
    const notice = page.locator('[data-plan-id="pro-monthly"]').getByRole("status").locator("p");
    await expect
      .poll(() => notice.allInnerTexts(), { timeout: 5_000 })
      .toEqual(["Welcome to NaijaLink!", "Redirecting to setup guide..."]);
    expect(new URL(page.url()).pathname).toBe("/pricing");
    await page.waitForURL(`${app.server.url}/get-started/details`, { timeout: 10_000 });
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("selectedPlan") ?? "null"));
    expect(stored).toMatchObject({ id: "pro-monthly", price: "$7.99" });
    await page.close();
  });

  it("loads the tutorial video only when it is clicked, with the configured video id", async () => {
    const page = await app.browser.newPage();
    const external: string[] = [];
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => {
      external.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${app.server.url}/tutorial`);
    await waitForHydration(page);
    expect(await page.locator("iframe").count()).toBe(0);
    expect(external).toEqual([]);
    await page.getByRole("button", { name: /Play video/ }).click();
    const src = await page.locator("iframe").getAttribute("src");
    expect(src).toContain(`youtube-nocookie.com/embed/${VIDEO_ID}`);
    expect(await page.locator("iframe").getAttribute("title")).toMatch(/NaijaLink/);
    await page.close();
  });

  it("the contact page's Setup Guide opens the tutorial and Billing Help scrolls to the form", async () => {
    const page = await open("/contact");
    await page.getByRole("button", { name: "Billing Help" }).click();
    await expect
      .poll(() =>
        page.evaluate(() => {
          const box = document.getElementById("contact-form")!.getBoundingClientRect();
          return box.top >= 0 && box.top < window.innerHeight;
        }),
      )
      .toBe(true);
    await page.getByRole("link", { name: "Setup Guide" }).click();
    await page.waitForURL(`${app.server.url}/tutorial`);
    await page.close();
  });

  it("the landing page links the tutorial teaser and the hero button to their pages", async () => {
    const page = await open("/");
    expect(
      await page.locator("main").getByRole("link", { name: "Get NaijaLink Now" }).getAttribute("href"),
    ).toBe("/get-started");
    expect(await page.locator("main a[href='/tutorial']").count()).toBeGreaterThan(0);
    expect(await page.locator("#pricing").count()).toBe(1);
    expect(await page.locator("#how-it-works").count()).toBe(1);
    await page.close();
  });

  it("no public page scrolls sideways at 320 px (screenshots in test-results/marketing-320)", async () => {
    await fs.mkdir(SCREENSHOT_DIR, { recursive: true });
    const overflowing: string[] = [];
    for (const pathname of MARKETING_PAGES) {
      const page = await open(pathname, { width: 320, height: 640 });
      const measure = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
        wide: [...document.querySelectorAll("body *")]
          .filter(
            (element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1,
          )
          .slice(0, 3)
          .map((element) => `${element.tagName}.${element.className}`),
      }));
      if (measure.scrollWidth > measure.clientWidth)
        overflowing.push(`${pathname}: ${measure.scrollWidth}px (${measure.wide.join(", ")})`);
      const name = pathname === "/" ? "home" : pathname.slice(1);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
      await page.close();
    }
    expect(overflowing).toEqual([]);
  });

  it.each([
    ["desktop", { width: 1280, height: 800 }],
    ["320 px", { width: 320, height: 640 }],
  ] as const)(
    "axe-core finds no accessibility violations on any public page (%s)",
    async (_name, viewport) => {
      const axeSource = await fs.readFile(AXE_SOURCE_PATH, "utf8");
      const problems: string[] = [];
      for (const pathname of MARKETING_PAGES) {
        const page = await open(pathname, viewport);
        // On a phone the shared header's menu is part of the page too.
        if (viewport.width < 768) await page.getByRole("button", { name: "Open menu" }).click();
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: {
                run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
              };
            }
          ).axe;
          const result = await axe.run();
          return result.violations.map(
            (violation) =>
              `${violation.id} ${JSON.stringify(violation.nodes.map((node) => node.target).slice(0, 3))}`,
          );
        });
        problems.push(...violations.map((violation) => `${pathname}: ${violation}`));
        await page.close();
      }
      expect(problems).toEqual([]);
    },
  );
});
