import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app.ts";
import {
  decodeHtml,
  HOUR_MS,
  insertPosts,
  metaContent,
  postLinks,
  visibilityFixture,
} from "../../support/blog.ts";
import { databaseKinds } from "../../support/database.ts";

// Expected texts come from docs/product.md §8, not from the implementation.
const EMPTY_MESSAGE = "No blog posts available yet";
const NOT_FOUND_HEADING = "Oops! Page not found";

function visibleText(html: string): string {
  return decodeHtml(
    html
      .replace(/<script[\s\S]*?<\/script>/g, "")
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " "),
  );
}

const slugs = (from: number, to: number) =>
  Array.from({ length: from - to + 1 }, (_, index) => `visible-${String(from - index).padStart(2, "0")}`);

describe.each(databaseKinds)("the public blog on %s", (kind) => {
  let app: TestApp;
  const { visible, hidden } = visibilityFixture();
  const hiddenSlugs = hidden.map((post) => post.slug);

  beforeAll(async () => {
    app = await createTestApp({ kind });
    await insertPosts(app.services.db, [...hidden, ...visible]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("pages 23 visible posts as 10, 10 and 3, newest first, with Previous / Page N / Next", async () => {
    const pages = await Promise.all(
      ["/blog", "/blog?page=2", "/blog?page=3"].map((path) => app.request(path)),
    );
    const html = await Promise.all(pages.map((response) => response.text()));
    expect(pages.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(postLinks(html[0]!)).toEqual(slugs(23, 14));
    expect(postLinks(html[1]!)).toEqual(slugs(13, 4));
    expect(postLinks(html[2]!)).toEqual(slugs(3, 1));

    const controls = (page: string) => {
      const nav = /<nav aria-label="Blog pages"[\s\S]*?<\/nav>/.exec(page)?.[0] ?? "";
      const anchors = [...nav.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map((match) => ({
        href: match[1]!,
        label: visibleText(match[2]!).trim(),
      }));
      return {
        previous: anchors.find((anchor) => anchor.label === "Previous")?.href ?? null,
        next: anchors.find((anchor) => anchor.label === "Next")?.href ?? null,
        label: /Page (?:<!-- -->)?(\d+)/.exec(nav)?.[1] ?? null,
      };
    };
    expect(controls(html[0]!)).toEqual({ previous: null, next: "/blog?page=2", label: "1" });
    expect(controls(html[1]!)).toEqual({ previous: "/blog", next: "/blog?page=3", label: "2" });
    // docs/product.md §8.2: Previous also on a short last page.
    expect(controls(html[2]!)).toEqual({ previous: "/blog?page=2", next: null, label: "3" });
  });

  it("never lists drafts, deleted, scheduled or undated posts", async () => {
    for (const path of ["/blog", "/blog?page=2", "/blog?page=3"]) {
      const html = await (await app.request(path)).text();
      for (const slug of hiddenSlugs) expect(html).not.toContain(slug);
      expect(html).not.toContain("Hidden ");
    }
  });

  it("shows each card's title, long US date and link", async () => {
    const html = await (await app.request("/blog")).text();
    const newest = visible[22]!;
    const text = visibleText(html);
    expect(text).toContain(newest.title);
    const expectedDate = newest.publishedAt!.toLocaleDateString("en-US", {
      month: "long",
      day: "numeric",
      year: "numeric",
      timeZone: "UTC",
    });
    expect(text).toContain(expectedDate);
    expect(expectedDate).toMatch(/^[A-Z][a-z]+ \d{1,2}, \d{4}$/);
  });

  it("answers pages past the end and malformed page numbers with the 404 page, never a 500", async () => {
    for (const page of ["4", "0", "-1", "2.5", "abc", "1e1", "99999999999999999999", ""]) {
      const response = await app.request(`/blog?page=${encodeURIComponent(page)}`);
      expect(response.status, `page=${page}`).toBe(404);
      expect(visibleText(await response.text())).toContain(NOT_FOUND_HEADING);
    }
  });

  it("links Previous to the nearest newer post and Next to the nearest older one, skipping hidden posts", async () => {
    const middle = await (await app.request("/blog/visible-12")).text();
    expect(/rel="prev"[^>]*href="\/blog\/visible-13"/.test(middle)).toBe(true);
    expect(/rel="next"[^>]*href="\/blog\/visible-11"/.test(middle)).toBe(true);
    const text = visibleText(middle);
    expect(text).toMatch(/Previous Visible post 13/);
    expect(text).toMatch(/Next Visible post 11/);

    // visible-13 and visible-12 straddle the deleted post; visible-23 is older than the draft and the future post.
    const newest = await (await app.request("/blog/visible-23")).text();
    expect(postLinks(newest)).toEqual(["visible-22"]);
    expect(newest).not.toContain('rel="prev"');
    const oldest = await (await app.request("/blog/visible-01")).text();
    expect(postLinks(oldest)).toEqual(["visible-02"]);
    expect(oldest).not.toContain('rel="next"');
    const nextToDeleted = await (await app.request("/blog/visible-13")).text();
    expect(postLinks(nextToDeleted)).toEqual(["visible-14", "visible-12"]);
  });

  it("renders a post with back link, title, author, long date, markdown and {title} | NaijaLink", async () => {
    const response = await app.request("/blog/visible-05");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<title>Visible post 05 | NaijaLink</title>");
    expect(html).toMatch(/<a[^>]*href="\/blog"[^>]*>[\s\S]*?Back to Blog<\/a>/);
    const text = visibleText(html);
    expect(text).toContain("By NaijaLink Team");
    expect(text).toContain("Body of Visible post 05.");
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/blog/visible-05"/>');
  });

  it.each([
    "hidden-draft",
    "hidden-deleted",
    "hidden-future",
    "hidden-undated",
    "hidden-deleted-draft",
    "no-such-post",
  ])("answers /blog/%s with the not-found page and status 404", async (slug) => {
    const response = await app.request(`/blog/${slug}`);
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(visibleText(html)).toContain(NOT_FOUND_HEADING);
    expect(html).not.toContain("Body of Hidden");
  });

  it("publishes a scheduled post by itself once its time has come", async () => {
    await insertPosts(app.services.db, [
      { title: "Scheduled soon", slug: "scheduled-soon", publishedAt: new Date(Date.now() + 1_500) },
    ]);
    expect((await app.request("/blog/scheduled-soon")).status).toBe(404);
    expect(postLinks(await (await app.request("/blog")).text())).not.toContain("scheduled-soon");
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect((await app.request("/blog/scheduled-soon")).status).toBe(200);
    expect(postLinks(await (await app.request("/blog")).text())[0]).toBe("scheduled-soon");
    await app.services.db.execute(sql`delete from blog_posts where slug = 'scheduled-soon'`);
  });
});

describe.each(databaseKinds)("excerpts and meta descriptions on %s", (kind) => {
  let app: TestApp;
  // docs/product.md §8.3: stripped of markdown syntax, whitespace collapsed, 160 characters.
  const longMarkdown = [
    "## Watching   *Super Sport*   abroad",
    "",
    "From **London**, [DSTV Now](https://example.com/dstv) works ~~badly~~ well with `WireGuard`.",
    "",
    "- Nigerian IP",
    "- Nigerian   prices",
    "",
    "> Fast\tand\tsimple.",
    "",
    "| a | b |",
    "| --- | --- |",
    "| table | cells |",
    "",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.",
  ].join("\n");
  // What a reader sees, written out by hand: tables vanish, link text stays, no symbols.
  const plain =
    "Watching Super Sport abroad From London, DSTV Now works badly well with WireGuard. Nigerian IP Nigerian prices Fast and simple. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.";
  const first160 = plain.slice(0, 160);

  beforeAll(async () => {
    app = await createTestApp({ kind });
    await insertPosts(app.services.db, [
      {
        title: "Long post",
        slug: "long-post",
        content: longMarkdown,
        publishedAt: new Date(Date.now() - HOUR_MS),
      },
      {
        title: "Short post",
        slug: "short-post",
        content: "Just **one** short\n\nline.",
        publishedAt: new Date(Date.now() - 2 * HOUR_MS),
      },
    ]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("cuts the card excerpt to 160 stripped characters plus an ellipsis", async () => {
    expect(plain.length).toBeGreaterThan(160);
    const text = visibleText(await (await app.request("/blog")).text());
    expect(first160.endsWith(" ")).toBe(false);
    expect(text).toContain(`${first160}...`);
    expect(text).not.toContain(plain.slice(0, 161));
    const card = /<p>(Watching[^<]*)<\/p>/.exec(await (await app.request("/blog")).text())?.[1] ?? "";
    expect(decodeHtml(card)).toBe(`${first160}...`);
  });

  it("shows a short excerpt whole, without an ellipsis", async () => {
    const text = visibleText(await (await app.request("/blog")).text());
    expect(text).toContain("Just one short line.");
    expect(text).not.toContain("Just one short line....");
  });

  it("sets the meta description to the stripped, collapsed content cut to 160 characters", async () => {
    const html = await (await app.request("/blog/long-post")).text();
    expect(metaContent(html, "name", "description")).toBe(first160);
    expect(metaContent(html, "property", "og:description")).toBe(first160);
    const short = await (await app.request("/blog/short-post")).text();
    expect(metaContent(short, "name", "description")).toBe("Just one short line.");
  });

  it("describes the post for crawlers: Open Graph, Twitter, BlogPosting JSON-LD, reading time, feed link", async () => {
    const html = await (await app.request("/blog/long-post")).text();
    expect(metaContent(html, "property", "og:type")).toBe("article");
    expect(metaContent(html, "property", "og:title")).toBe("Long post | NaijaLink");
    expect(metaContent(html, "name", "twitter:title")).toBe("Long post | NaijaLink");
    const jsonLd = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)?.[1];
    const posting = JSON.parse(jsonLd!) as Record<string, unknown>;
    expect(posting).toMatchObject({
      "@context": "https://schema.org",
      "@type": "BlogPosting",
      headline: "Long post",
      author: { "@type": "Person", name: "NaijaLink Team" },
    });
    expect(new Date(posting.datePublished as string).getTime()).toBeGreaterThan(0);
    expect(new Date(posting.dateModified as string).getTime()).toBeGreaterThan(0);
    expect(visibleText(html)).toMatch(/\b1 min read\b/);
    for (const page of [html, await (await app.request("/blog")).text()]) {
      expect(page).toMatch(
        /<link rel="alternate" type="application\/rss\+xml" title="NaijaLink Blog" href="\/blog\/rss.xml"\/>/,
      );
    }
  });

  it("gives the list a title, meta description and canonical link", async () => {
    const html = await (await app.request("/blog")).text();
    expect(html).toContain("<title>Blog | NaijaLink</title>");
    expect(metaContent(html, "name", "description")).toMatch(/\S{10,}/);
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/blog"/>');
  });
});

describe("an empty or failing blog list", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("shows No blog posts available yet when there are no posts", async () => {
    const response = await app.request("/blog");
    expect(response.status).toBe(200);
    expect(visibleText(await response.text())).toContain(EMPTY_MESSAGE);
  });

  it("shows No blog posts available yet, not an error, when the query fails", async () => {
    await app.services.db.execute(sql`alter table blog_posts rename to blog_posts_away`);
    try {
      const response = await app.request("/blog");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(visibleText(await response.text())).toContain(EMPTY_MESSAGE);
      expect(app.log.text).toContain("blog list query failed");
    } finally {
      await app.services.db.execute(sql`alter table blog_posts_away rename to blog_posts`);
    }
  });
});
