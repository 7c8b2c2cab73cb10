// Decision 085: a first visit to the blog ships no React, only the enhancement script, while a
// client-side navigation from a hydrated page still renders the blog in the browser.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS, insertPosts } from "../support/blog.ts";
import { useBrowserApp, waitForHydration } from "../support/browser.ts";

const ENHANCEMENT_SCRIPT = /^\/assets\/enhance-[0-9a-f]{10}\.js$/;

describe("the blog's pages in a real browser", () => {
  const app = useBrowserApp({ backgroundJobs: false });
  beforeAll(async () => {
    // 12 posts: two list pages. post-12 is the newest.
    await insertPosts(
      app.server.services.db,
      Array.from({ length: 12 }, (_, index) => {
        const number = String(index + 1).padStart(2, "0");
        return {
          title: `Static post ${number}`,
          slug: `post-${number}`,
          content: `## Section\n\nBody of post ${number}.`,
          publishedAt: new Date(Date.now() - (20 - index) * HOUR_MS),
        };
      }),
    );
  });

  async function openRecordingScripts(pathname: string) {
    const page = await app.browser.newPage();
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    const response = await page.goto(`${app.server.url}${pathname}`);
    await waitForHydration(page);
    return { page, scripts, response: response!, html: await response!.text() };
  }

  it.each([
    ["/blog", 200],
    ["/blog?page=2", 200],
    ["/blog/post-05", 200],
    ["/blog?page=3", 404],
    ["/blog/no-such-post", 404],
  ])("%s ships no React, only the enhancement script (%i)", async (pathname, status) => {
    const { page, scripts, response, html } = await openRecordingScripts(pathname);
    expect(response.status()).toBe(status);
    expect(html).not.toContain("modulepreload");
    expect(html).not.toContain("__reactRouterContext");
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(ENHANCEMENT_SCRIPT);
    await page.close();
  });

  it("keeps the headings in order on the list: one h1, then the cards' h2s", async () => {
    const { page } = await openRecordingScripts("/blog");
    const levels = await page.evaluate(() =>
      [...document.querySelectorAll("main h1, main h2, main h3, main h4")].map((h) => h.tagName),
    );
    expect(levels[0]).toBe("H1");
    expect(levels.slice(1)).toEqual(Array.from({ length: 10 }, () => "H2"));
    await page.close();
  });

  it("pages and opens posts by document loads from a first visit, the enhanced menu working", async () => {
    const { page } = await openRecordingScripts("/blog");
    await page.getByRole("link", { name: "Next" }).click();
    await page.waitForURL(/\/blog\?page=2$/);
    await waitForHydration(page);
    expect(await page.getByRole("link", { name: /^Static post/ }).allInnerTexts()).toEqual([
      "Static post 02",
      "Static post 01",
    ]);
    await page.getByRole("link", { name: "Static post 02" }).click();
    await page.waitForURL(/\/blog\/post-02$/);
    expect(await page.title()).toBe("Static post 02 | NaijaLink");
    await page.close();
  });

  it("renders a post in the browser after a client-side navigation from a hydrated page", async () => {
    const page: Page = await app.browser.newPage();
    await page.goto(`${app.server.url}/get-started`);
    await waitForHydration(page);
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Blog", exact: true })
      .click();
    await page.getByRole("link", { name: "Static post 12" }).click();
    await page.waitForURL(/\/blog\/post-12$/);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).innerText()).toBe("Static post 12");
    // React rendered it: the same document, still hydrated.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
    expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(true);
    await page.close();
  });
});
