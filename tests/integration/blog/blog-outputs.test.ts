import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql, type SQL } from "drizzle-orm";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { blogPageSource } from "#server/http/blog-pages.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";
import { HOUR_MS, insertPosts, visibilityFixture } from "../../support/blog.ts";
import { databaseKinds } from "../../support/database.ts";
import { servePageCache, type CachedApp } from "../../support/page-cache.ts";

const XMLLINT = "/usr/bin/xmllint";
const SITEMAP_XSD = path.resolve(import.meta.dirname, "../../fixtures/sitemap-0.9.xsd");
const run = promisify(execFile);

async function xmllintValidate(xml: string): Promise<void> {
  if (!fs.existsSync(XMLLINT)) {
    throw new Error(`xmllint not found at ${XMLLINT}: install libxml2-utils (apt-get install libxml2-utils)`);
  }
  const file = path.join(await fs.promises.mkdtemp(path.join(os.tmpdir(), "sitemap-")), "sitemap.xml");
  await fs.promises.writeFile(file, xml);
  try {
    const { stderr } = await run(XMLLINT, ["--noout", "--schema", SITEMAP_XSD, file], { timeout: 20_000 });
    expect(stderr).toContain("validates");
  } finally {
    await fs.promises.rm(path.dirname(file), { recursive: true, force: true });
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => ["url", "item"].includes(name),
});

describe.each(databaseKinds)("sitemap and RSS feed on %s", (kind) => {
  let app: TestApp;
  const { visible, hidden } = visibilityFixture();
  const edited = new Date(Date.now() - 2 * HOUR_MS);

  beforeAll(async () => {
    app = await createTestApp({ kind });
    // visible-07 was edited after it was published: its lastmod is the edit.
    visible[6] = { ...visible[6]!, updatedAt: edited };
    visible[8] = { ...visible[8]!, title: `Tom & Jerry <"quoted"> post` };
    await insertPosts(app.services.db, [...hidden, ...visible]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("serves /sitemap.xml as sitemaps.org XML that xmllint validates, with every public page and visible post", async () => {
    const response = await app.request("/sitemap.xml");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/xml/);
    const xml = await response.text();
    await xmllintValidate(xml);
    const urlset = parser.parse(xml).urlset as {
      "@xmlns": string;
      url: Array<{ loc: string; lastmod?: string }>;
    };
    expect(urlset["@xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    const locs = urlset.url.map((url) => url.loc);
    for (const page of [
      "/",
      "/pricing",
      "/how-it-works",
      "/tutorial",
      "/reviews",
      "/contact",
      "/blog",
      "/terms",
      "/privacy",
      "/refund-policy",
    ]) {
      expect(locs).toContain(`http://localhost:3000${page}`);
    }
    const postUrls = urlset.url.filter((url) => url.loc.startsWith("http://localhost:3000/blog/"));
    expect(postUrls.map((url) => url.loc.replace("http://localhost:3000/blog/", "")).sort()).toEqual(
      visible.map((post) => post.slug).sort(),
    );
    for (const slug of hidden.map((post) => post.slug)) expect(xml).not.toContain(slug);
    const lastmod = (slug: string) => postUrls.find((url) => url.loc.endsWith(`/${slug}`))?.lastmod;
    expect(lastmod("visible-07")).toBe(edited.toISOString());
    expect(lastmod("visible-08")).toBe(visible[7]!.publishedAt!.toISOString());
    expect(locs.some((loc) => loc.includes("/admin"))).toBe(false);
  });

  it("answers GET and POST /api/sitemap with the same XML text", async () => {
    const page = await (await app.request("/sitemap.xml")).text();
    const get = await app.request("/api/sitemap");
    expect(get.status).toBe(200);
    expect(await get.text()).toBe(page);
    const post = await app.request("/api/sitemap", { method: "POST", json: {} });
    expect(post.status).toBe(200);
    expect(await post.text()).toBe(page);
  });

  it("serves an RSS 2.0 feed of the newest visible posts that parses, without hidden posts", async () => {
    const response = await app.request("/blog/rss.xml");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/rss\+xml/);
    const xml = await response.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const rss = parser.parse(xml).rss as {
      "@version": string;
      channel: { title: string; link: string; description: string; item: Array<Record<string, unknown>> };
    };
    expect(rss["@version"]).toBe("2.0");
    expect(rss.channel.title).toBe("NaijaLink Blog");
    expect(rss.channel.link).toBe("http://localhost:3000/blog");
    expect(rss.channel.description).toBeTruthy();
    const items = rss.channel.item;
    expect(items.map((item) => item.link)).toEqual(
      visible
        .slice(3)
        .reverse()
        .map((post) => `http://localhost:3000/blog/${post.slug}`),
    );
    for (const item of items) {
      expect(item.title).toBeTruthy();
      expect(Number.isNaN(Date.parse(String(item.pubDate)))).toBe(false);
      expect((item.guid as { "#text": string })["#text"]).toBe(item.link);
    }
    expect(items.find((item) => item.link === "http://localhost:3000/blog/visible-09")?.title).toBe(
      `Tom & Jerry <"quoted"> post`,
    );
    for (const slug of hidden.map((post) => post.slug)) expect(xml).not.toContain(slug);
  });
});

describe.each(databaseKinds)("HTTP caching of the public blog outputs on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    await insertPosts(app.services.db, [
      { title: "First", slug: "first", publishedAt: new Date(Date.now() - 3 * HOUR_MS) },
      { title: "Second", slug: "second", publishedAt: new Date(Date.now() - 2 * HOUR_MS) },
    ]);
  });
  afterAll(async () => {
    await app?.close();
  });

  const PATHS = ["/blog", "/blog/first", "/sitemap.xml", "/blog/rss.xml"];

  describe("through the page cache", () => {
    let cached: CachedApp;
    beforeAll(async () => {
      cached = await servePageCache({
        handle: (request) => app.request(new URL(request.url).pathname),
        sources: [blogPageSource(app.services.blogFreshness)],
      });
    });
    afterAll(async () => {
      await cached?.close();
    });
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${cached.url}${path}`, { headers });

    it.each(PATHS)(
      "%s carries Cache-Control, ETag and Last-Modified and answers 304 to If-None-Match",
      async (path) => {
        const response = await get(path);
        expect(response.status).toBe(200);
        const etag = response.headers.get("etag");
        expect(etag).toMatch(/^W\/".+"$/);
        expect(response.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
        expect(new Date(response.headers.get("last-modified")!).getTime()).toBeGreaterThan(
          Date.now() - 3 * HOUR_MS - 1000,
        );
        const again = await get(path, { "If-None-Match": etag! });
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        expect(await again.text()).toBe("");
        const stale = await get(path, { "If-None-Match": 'W/"something-else"' });
        expect(stale.status).toBe(200);
      },
    );

    it("changes every validator when a post changes, is unpublished or appears", async () => {
      const etags = async () => Promise.all(PATHS.map(async (path) => (await get(path)).headers.get("etag")));
      // On PostgreSQL a change reaches the page cache as a notification a moment after its commit
      // (decision 081); on PGlite before the write returns.
      const write = async (statement: SQL) => {
        const seen = app.services.blogFreshness.changes.count;
        await app.services.db.execute(statement);
        await vi.waitUntil(() => app.services.blogFreshness.changes.count > seen, { timeout: 1_000 });
      };
      const before = await etags();

      await write(
        sql`update blog_posts set title = 'First, edited', updated_at = now() where slug = 'first'`,
      );
      const afterEdit = await etags();
      afterEdit.forEach((etag, index) => expect(etag, PATHS[index]).not.toBe(before[index]));
      const conditional = await get("/blog/first", { "If-None-Match": before[1]! });
      expect(conditional.status).toBe(200);
      expect(await conditional.text()).toContain("First, edited");

      await write(sql`update blog_posts set deleted_at = now() where slug = 'second'`);
      const afterDelete = await etags();
      afterDelete.forEach((etag, index) => expect(etag, PATHS[index]).not.toBe(afterEdit[index]));
    });
  });
});

describe("the rendered-page cache of the HTTP server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
    await insertPosts(server.services.db, [
      { title: "Cached post", slug: "cached-post", publishedAt: new Date(Date.now() - HOUR_MS) },
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the same bytes while nothing changed, and the new text as soon as a post changes", async () => {
    const first = await fetch(`${server.url}/blog/cached-post`);
    const second = await fetch(`${server.url}/blog/cached-post`);
    const [firstHtml, secondHtml] = [await first.text(), await second.text()];
    expect(secondHtml).toBe(firstHtml);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    // The security headers of the Express host are still on a cached answer.
    expect(second.headers.get("content-security-policy")).toBeTruthy();

    const notModified = await fetch(`${server.url}/blog/cached-post`, {
      headers: { "If-None-Match": first.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);

    await server.services.db.execute(
      sql`update blog_posts set content = 'Freshly edited body.', updated_at = now() where slug = 'cached-post'`,
    );
    const edited = await fetch(`${server.url}/blog/cached-post`, {
      headers: { "If-None-Match": first.headers.get("etag")! },
    });
    expect(edited.status).toBe(200);
    expect(await edited.text()).toContain("Freshly edited body.");

    await server.services.db.execute(
      sql`update blog_posts set status = 'draft', updated_at = now() where slug = 'cached-post'`,
    );
    expect((await fetch(`${server.url}/blog/cached-post`)).status).toBe(404);
    const list = await (await fetch(`${server.url}/blog`)).text();
    expect(list).toContain("No blog posts available yet");
    const sitemap = await (await fetch(`${server.url}/sitemap.xml`)).text();
    expect(sitemap).not.toContain("cached-post");
  });
});

/** What a reader sees of a page: its text, without scripts, styles or markup. */
function visibleText(html: string): string {
  return html.replace(/<(script|style)[\s\S]*?<\/\1>/g, "").replace(/<[^>]+>/g, " ");
}

describe("sample posts on a fresh database", () => {
  it("writes a few sample posts when the blog is empty and SEED_SAMPLE_CONTENT is on, labelled as samples in the admin only", async () => {
    const app = await createTestApp({ env: { SEED_SAMPLE_CONTENT: "true" } });
    try {
      const rows = (await app.services.db.execute(
        sql`select slug, title, status, published_at from blog_posts order by published_at desc`,
      )) as unknown as {
        rows: Array<{ slug: string; title: string; status: string; published_at: unknown }>;
      };
      expect(rows.rows.length).toBeGreaterThanOrEqual(2);
      for (const row of rows.rows) expect(row.status).toBe("published");
      const list = await (await app.request("/blog")).text();
      for (const row of rows.rows) expect(list).toContain(`/blog/${row.slug}`);
      // Readers see ordinary posts: no "sample" in a title, a slug or a post's text.
      expect(visibleText(list)).not.toMatch(/sample/i);
      for (const row of rows.rows) {
        expect(row.slug).not.toMatch(/sample/i);
        const post = await app.request(`/blog/${row.slug}`);
        expect(post.status).toBe(200);
        expect(visibleText(await post.text())).not.toMatch(/sample/i);
      }
      // Staff see which posts are the shipped samples, until they rewrite one.
      const { cookie } = await createAccount(app, STAFF_EMAIL);
      const listPosts = async () =>
        (
          (await (await app.request("/api/blog-admin/list", { json: {}, headers: { cookie } })).json()) as {
            posts: Array<{ id: string; sample: boolean }>;
          }
        ).posts;
      const posts = await listPosts();
      expect(posts.length).toBe(rows.rows.length);
      expect(posts.every((post) => post.sample)).toBe(true);
      const rewritten = await app.request("/api/blog-admin/update", {
        json: { id: posts[0]!.id, title: "Our own post", content: "Written by us." },
        headers: { cookie },
      });
      expect(rewritten.status).toBe(200);
      const after = await listPosts();
      expect(after.find((post) => post.id === posts[0]!.id)?.sample).toBe(false);
      expect(after.filter((post) => post.sample).length).toBe(posts.length - 1);
    } finally {
      await app.close();
    }
  });

  it("writes nothing when SEED_SAMPLE_CONTENT is off (as in tests)", async () => {
    const app = await createTestApp();
    try {
      const result = (await app.services.db.execute(
        sql`select count(*)::int as count from blog_posts`,
      )) as unknown as {
        rows: Array<{ count: number }>;
      };
      expect(result.rows[0]!.count).toBe(0);
    } finally {
      await app.close();
    }
  });
});
