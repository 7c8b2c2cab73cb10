// The Open Graph share cards (decision 084): the site's and each visible post's 1200×630 PNG,
// addressed by a version of what they draw, and linked from every public page's meta tags.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogPosts } from "#server/db/schema/blog.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { HOUR_MS, insertPosts } from "../../support/blog.ts";
import { MARKETING_PAGES } from "../../support/routes.ts";

/** Width and height from the PNG's IHDR chunk (signature 8 bytes, length 4, type 4, then the two). */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  expect([...bytes.subarray(0, 8)]).toEqual(signature);
  expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe("IHDR");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function metaContent(html: string, key: string): string | undefined {
  const tag = new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)"`).exec(html);
  return tag?.[1]?.replaceAll("&amp;", "&");
}

describe("share cards", () => {
  let app: TestApp;
  const publishedAt = new Date(Date.UTC(2026, 2, 14, 12));

  beforeAll(async () => {
    app = await createTestApp();
    await insertPosts(app.services.db, [
      { title: "Watching Super Sport From Houston", slug: "super-sport-houston", publishedAt },
      { title: "A draft", slug: "a-draft", status: "draft", publishedAt: null },
      { title: "Gone", slug: "gone", deletedAt: new Date(Date.now() - HOUR_MS) },
      // The longest title the admin accepts, in Yoruba letters and with an emoji.
      { title: `Ọjọ́ Àìkú 🎉 ${"ẹ ṣ ŋ ɓ ƙ ".repeat(29)}`.slice(0, 300), slug: "longest" },
    ]);
  });
  afterAll(() => app?.close());

  async function imageOf(path: string): Promise<string> {
    const html = await (await app.request(path)).text();
    const image = metaContent(html, "og:image");
    expect(image, `${path} has og:image`).toBeDefined();
    return image!;
  }

  it.each([...MARKETING_PAGES, "/blog", "/check", "/get-started", "/blog/super-sport-houston"])(
    "%s links an absolute 1200×630 og:image with its alt text and a large Twitter card",
    async (path) => {
      const html = await (await app.request(path)).text();
      expect(metaContent(html, "og:image")).toMatch(new RegExp(`^${app.config.PUBLIC_URL}/.*og\\.png\\?v=`));
      expect(metaContent(html, "og:image:width")).toBe("1200");
      expect(metaContent(html, "og:image:height")).toBe("630");
      expect(metaContent(html, "og:image:alt")?.length).toBeGreaterThan(10);
      expect(metaContent(html, "twitter:card")).toBe("summary_large_image");
    },
  );

  it("the site card is a 1200×630 PNG, kept for a year at its versioned address", async () => {
    const image = new URL(await imageOf("/pricing"));
    expect(image.pathname).toBe("/og.png");
    const response = await app.request(image.pathname + image.search);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("cache-control")).toContain("immutable");
    expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    const unversioned = await app.request("/og.png");
    expect(unversioned.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const again = await app.request("/og.png", {
      headers: { "If-None-Match": response.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("a post's card is its own PNG and gets a new address when its title changes", async () => {
    const before = new URL(await imageOf("/blog/super-sport-houston"));
    expect(before.pathname).toBe("/blog/super-sport-houston/og.png");
    expect(before.search).not.toBe(new URL(await imageOf("/")).search);
    const first = await app.request(before.pathname + before.search);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toContain("immutable");
    const firstBytes = new Uint8Array(await first.arrayBuffer());
    expect(pngSize(firstBytes)).toEqual({ width: 1200, height: 630 });

    await app.services.db
      .update(blogPosts)
      .set({ title: "Watching Super Sport From Dallas", updatedAt: new Date() })
      .where(eq(blogPosts.slug, "super-sport-houston"));
    const after = new URL(await imageOf("/blog/super-sport-houston"));
    expect(after.search).not.toBe(before.search);
    const second = await app.request(after.pathname + after.search);
    const secondBytes = new Uint8Array(await second.arrayBuffer());
    expect(pngSize(secondBytes)).toEqual({ width: 1200, height: 630 });
    expect(Buffer.from(secondBytes).equals(Buffer.from(firstBytes))).toBe(false);
    // The old address now answers the current card, and no longer for a year.
    const stale = await app.request(before.pathname + before.search);
    expect(stale.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
  });

  it("draws the longest title, whatever its letters, on a 1200×630 card", async () => {
    const image = new URL(await imageOf("/blog/longest"));
    const response = await app.request(image.pathname + image.search);
    expect(response.status).toBe(200);
    expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
  });

  it.each(["no-such-post", "a-draft", "gone"])("the card of %s is 404", async (slug) => {
    const response = await app.request(`/blog/${slug}/og.png`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).not.toBe("image/png");
  });

  it("draws a card once per version and answers repeats from memory", async () => {
    await app.services.db
      .update(blogPosts)
      .set({ title: "Watching Super Sport From Austin", updatedAt: new Date() })
      .where(eq(blogPosts.slug, "super-sport-houston"));
    const path = new URL(await imageOf("/blog/super-sport-houston"));
    const drawnBefore = app.services.shareCards.drawn;
    const fetchTwenty = async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => app.request(path.pathname + path.search)),
      );
      return Promise.all(answers.map(async (answer) => Buffer.from(await answer.arrayBuffer())));
    };
    // Twenty at once while the new version is drawn, then twenty more: one drawing for all forty.
    const bodies = [...(await fetchTwenty()), ...(await fetchTwenty())];
    expect(new Set(bodies.map((body) => body.toString("base64"))).size).toBe(1);
    expect(app.services.shareCards.drawn - drawnBefore).toBe(1);
  });
});
