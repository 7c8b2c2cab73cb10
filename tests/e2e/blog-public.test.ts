import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS, insertPosts } from "../support/blog.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";

const GFM_POST = [
  "Intro paragraph.",
  "",
  "| Plan | Price |",
  "| --- | --- |",
  "| Unlock | $3 |",
  "",
  "This is ~~struck out~~ text.",
  "",
  "- [x] Install WireGuard",
  "- [ ] Scan the QR code",
  "",
  "A claim with a footnote.[^source]",
  "",
  "Visit https://example.com/autolinked for more.",
  "",
  "[^source]: The footnote text.",
].join("\n");

const HOSTILE_POST = [
  "[click me](javascript:window.__pwned=1;alert(1))",
  "",
  "<script>window.__pwned = 2; alert(2)</script>",
  "",
  '<img src="/nope.png" onerror="window.__pwned = 3; alert(3)">',
  "",
  '<a href="#" onclick="window.__pwned = 4">raw link</a>',
  "",
  "![pic](javascript:alert(5))",
].join("\n");

describe("the public blog in Chromium", () => {
  const app = useBrowserApp({ backgroundJobs: false });
  beforeAll(async () => {
    await insertPosts(app.server.services.db, [
      {
        title: "GFM showcase",
        slug: "gfm-showcase",
        content: GFM_POST,
        publishedAt: new Date(Date.now() - 2 * HOUR_MS),
      },
      {
        title: "Hostile content",
        slug: "hostile",
        content: HOSTILE_POST,
        publishedAt: new Date(Date.now() - HOUR_MS),
      },
    ]);
  });

  async function open(path: string): Promise<Page> {
    const page = await app.browser.newPage();
    await page.goto(`${app.server.url}${path}`);
    await waitForHydration(page);
    return page;
  }

  it("renders every GFM feature: table, strikethrough, task list, footnote and autolink", async () => {
    const page = await open("/blog/gfm-showcase");
    const content = page.getByTestId("markdown-content");
    expect(await content.locator("table th").allInnerTexts()).toEqual(["Plan", "Price"]);
    expect(await content.locator("table td").allInnerTexts()).toEqual(["Unlock", "$3"]);
    expect(await content.locator("del").innerText()).toBe("struck out");
    const boxes = content.locator('li input[type="checkbox"]');
    expect(await boxes.count()).toBe(2);
    expect(await boxes.nth(0).isChecked()).toBe(true);
    expect(await boxes.nth(1).isChecked()).toBe(false);
    const reference = content.locator("sup a[data-footnote-ref]");
    expect(await reference.innerText()).toBe("1");
    const footnote = content.locator("section[data-footnotes] li");
    expect(await footnote.innerText()).toContain("The footnote text.");
    expect(await reference.getAttribute("href")).toBe(`#${await footnote.getAttribute("id")}`);
    const autolink = content.getByRole("link", { name: "https://example.com/autolinked" });
    expect(await autolink.getAttribute("href")).toBe("https://example.com/autolinked");
    await page.close();
  });

  it("never runs script from post content and blanks the javascript: link", async () => {
    const page = await app.browser.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${app.server.url}/blog/hostile`);
    await waitForHydration(page);
    const content = page.getByTestId("markdown-content");
    const link = content.getByRole("link", { name: "click me" });
    expect(await link.getAttribute("href")).toBe("");
    await link.click();
    await page.waitForTimeout(300);
    // Raw HTML is shown as text, never parsed into elements.
    expect(await content.locator("script, img[onerror], a[onclick]").count()).toBe(0);
    expect(await content.innerText()).toContain("<script>");
    // React leaves out an empty src entirely; either way the javascript: URL is gone.
    expect((await content.locator("img").getAttribute("src")) ?? "").toBe("");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("shows the six-card skeleton while a client-side navigation to /blog loads, then the posts", async () => {
    // From a hydrated page: the marketing pages are static and reach /blog by a document load.
    const page = await open("/get-started");
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Hold back only the blog route's own data; the root loader's revalidation goes through.
    const seen: string[] = [];
    await page.route(/\/blog\.data/, async (route) => {
      const url = new URL(route.request().url());
      seen.push(url.search);
      if (url.searchParams.get("_routes")?.includes("routes/blog")) await released;
      await route.continue();
    });
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Blog", exact: true })
      .click();
    await expect
      .poll(() => page.getByTestId("blog-skeleton-card").count(), {
        timeout: 10_000,
        message: seen.join(" "),
      })
      .toBe(6);
    release();
    await expect
      .poll(() => page.getByRole("link", { name: "Hostile content" }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await page.getByTestId("blog-skeleton-card").count()).toBe(0);
    expect(await page.title()).toBe("Blog | NaijaLink");
    await page.close();
  });

  it("navigates from a card to the post and back to the list", async () => {
    const page = await open("/blog");
    await page.getByRole("link", { name: "GFM showcase" }).click();
    await page.waitForURL(/\/blog\/gfm-showcase$/);
    await expect.poll(() => page.title()).toBe("GFM showcase | NaijaLink");
    await page.getByRole("link", { name: "Previous" }).click();
    await page.waitForURL(/\/blog\/hostile$/);
    await page.getByRole("link", { name: "Back to Blog" }).click();
    await page.waitForURL(/\/blog$/);
    await expect.poll(() => page.getByRole("link", { name: "GFM showcase" }).count()).toBe(1);
    await page.close();
  });
});

describe("an empty blog in Chromium", () => {
  const app = useBrowserApp({ backgroundJobs: false });

  it("shows No blog posts available yet, on a full load and after a client-side navigation", async () => {
    const page = await app.browser.newPage();
    await page.goto(`${app.server.url}/blog`);
    await waitForHydration(page);
    expect(await page.getByText("No blog posts available yet").count()).toBe(1);
    await page.goto(`${app.server.url}/`);
    await waitForHydration(page);
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Blog", exact: true })
      .click();
    await expect
      .poll(() => page.getByText("No blog posts available yet").count(), { timeout: 10_000 })
      .toBe(1);
    await page.close();
  });
});
