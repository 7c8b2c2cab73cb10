// The crawler outputs: /sitemap.xml (sitemaps.org 0.9) and /blog/rss.xml (RSS 2.0).
import { excerpt } from "#core/markdown.ts";
import type { Executor } from "#server/db/client.ts";
import { lastModified, listAllVisiblePosts, type SitemapPost } from "./public.ts";

/** Public, indexable pages (docs/product.md §2.11); the purchase steps after plan choice and the admin are left out. */
export const SITEMAP_PAGES = [
  "/",
  "/pricing",
  "/how-it-works",
  "/tutorial",
  "/reviews",
  "/contact",
  "/blog",
  "/get-started",
  "/terms",
  "/privacy",
  "/refund-policy",
  "/check",
] as const;

export const FEED_ITEM_LIMIT = 20;

export function escapeXml(value: string): string {
  return (
    value
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
      // XML 1.0 forbids most control characters even when escaped; drop them.
      // eslint-disable-next-line no-control-regex
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
  );
}

function postUrl(publicUrl: string, slug: string): string {
  return `${publicUrl}/blog/${encodeURIComponent(slug)}`;
}

function latestChange(posts: SitemapPost[]): Date | undefined {
  return posts.reduce<Date | undefined>((latest, post) => {
    const changed = lastModified(post);
    return !latest || changed > latest ? changed : latest;
  }, undefined);
}

export function renderSitemap(publicUrl: string, posts: SitemapPost[]): string {
  const newestChange = latestChange(posts);
  const urls = [
    ...SITEMAP_PAGES.map((path) => ({
      loc: `${publicUrl}${path === "/" ? "/" : path}`,
      lastmod: path === "/blog" ? newestChange : undefined,
    })),
    ...posts.map((post) => ({ loc: postUrl(publicUrl, post.slug), lastmod: lastModified(post) })),
  ];
  const lines = urls.map(
    ({ loc, lastmod }) =>
      `  <url>\n    <loc>${escapeXml(loc)}</loc>${lastmod ? `\n    <lastmod>${lastmod.toISOString()}</lastmod>` : ""}\n  </url>`,
  );
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`,
    ...lines,
    `</urlset>`,
    "",
  ].join("\n");
}

export function renderRssFeed(site: { publicUrl: string; brandName: string }, posts: SitemapPost[]): string {
  const items = posts.slice(0, FEED_ITEM_LIMIT).map((post) => {
    const url = postUrl(site.publicUrl, post.slug);
    return [
      "    <item>",
      `      <title>${escapeXml(post.title)}</title>`,
      `      <link>${escapeXml(url)}</link>`,
      `      <guid isPermaLink="true">${escapeXml(url)}</guid>`,
      `      <pubDate>${post.publishedAt.toUTCString()}</pubDate>`,
      `      <dc:creator>${escapeXml(post.author)}</dc:creator>`,
      `      <description>${escapeXml(excerpt(post.content))}</description>`,
      "    </item>",
    ].join("\n");
  });
  const built = latestChange(posts);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">`,
    "  <channel>",
    `    <title>${escapeXml(`${site.brandName} Blog`)}</title>`,
    `    <link>${escapeXml(`${site.publicUrl}/blog`)}</link>`,
    `    <description>${escapeXml(`Guides and news from ${site.brandName} on watching Nigerian TV abroad.`)}</description>`,
    "    <language>en-us</language>",
    `    <atom:link href="${escapeXml(`${site.publicUrl}/blog/rss.xml`)}" rel="self" type="application/rss+xml"/>`,
    ...(built ? [`    <lastBuildDate>${built.toUTCString()}</lastBuildDate>`] : []),
    ...items,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}

export async function buildSitemap(db: Executor, publicUrl: string): Promise<string> {
  return renderSitemap(publicUrl, await listAllVisiblePosts(db));
}

export async function buildRssFeed(
  db: Executor,
  site: { publicUrl: string; brandName: string },
): Promise<string> {
  return renderRssFeed(site, await listAllVisiblePosts(db));
}
