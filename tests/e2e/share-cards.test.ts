// A post's share card on the production build: the og:image a link preview would fetch is a
// 1200×630 PNG, and a staff edit of the title (through the admin API) gives it a new address.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signUpAndConfirm, STAFF_EMAIL } from "../support/admin-browser.ts";
import { insertPosts } from "../support/blog.ts";
import { useBrowserApp } from "../support/browser.ts";

/** Width and height from the PNG's IHDR chunk, which follows the 8-byte signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe("a post's share card", () => {
  const app = useBrowserApp({ ownUrl: true });

  beforeAll(async () => {
    await insertPosts(app.server.services.db, [{ title: "Showmax From Toronto", slug: "showmax-toronto" }]);
  });

  /** The post page's og:image, after checking its alt text names the title. */
  async function ogImage(page: Page, title: string): Promise<string> {
    await page.goto(`${app.server.url}/blog/showmax-toronto`);
    const image = await page.locator('meta[property="og:image"]').getAttribute("content");
    expect(image).toMatch(new RegExp(`^${app.server.url}/blog/showmax-toronto/og\\.png\\?v=`));
    expect(await page.locator('meta[property="og:image:alt"]').getAttribute("content")).toContain(title);
    expect(await page.locator('meta[name="twitter:card"]').getAttribute("content")).toBe(
      "summary_large_image",
    );
    return image!;
  }

  it("is a 1200×630 PNG whose address changes when staff change the title", async () => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    const before = await ogImage(page, "Showmax From Toronto");
    const card = await page.request.get(before);
    expect(card.status()).toBe(200);
    expect(card.headers()["content-type"]).toBe("image/png");
    const firstBytes = await card.body();
    expect(pngSize(firstBytes)).toEqual({ width: 1200, height: 630 });

    await signUpAndConfirm(page, app.server, STAFF_EMAIL);
    await page.waitForURL(`${app.server.url}/admin/blog`);
    const edited = await page.evaluate(async () => {
      const list = await fetch("/api/blog-admin/list", { method: "POST" });
      const { posts } = (await list.json()) as { posts: Array<{ id: string; slug: string }> };
      const id = posts.find((post) => post.slug === "showmax-toronto")!.id;
      const update = await fetch("/api/blog-admin/update", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ id, title: "Showmax From Vancouver" }),
      });
      return update.status;
    });
    expect(edited).toBe(200);

    const after = await ogImage(page, "Showmax From Vancouver");
    expect(after).not.toBe(before);
    const newCard = await page.request.get(after);
    const newBytes = await newCard.body();
    expect(pngSize(newBytes)).toEqual({ width: 1200, height: 630 });
    expect(newBytes.equals(firstBytes)).toBe(false);
    await context.close();
  });
});
