// The public blog outputs kept by the page cache: the list, its pages, each post, the sitemap
// and the feed. Their bytes depend only on the blog's version, the build and the config.
import type { BlogFreshness } from "#server/domain/blog/freshness.ts";
import type { PageSource } from "./page-cache.ts";

const BLOG_PAGE = /^\/(?:blog|blog\/rss\.xml|blog\/[a-z0-9][a-z0-9-]*|sitemap\.xml|api\/sitemap)$/;

/** The target itself when it is a plain blog path, `/blog?page=N`; any other query is not cached. */
export function blogPageKey(target: string): string | undefined {
  // The pattern admits only plain path characters, so a match is already the normalised path.
  if (BLOG_PAGE.test(target)) return target;
  if (!target.includes("?")) return undefined;
  const url = new URL(target, "http://local");
  if (!BLOG_PAGE.test(url.pathname)) return undefined;
  const params = [...url.searchParams.keys()];
  if (params.length === 0) return url.pathname;
  if (url.pathname === "/blog" && params.length === 1 && params[0] === "page") return `/blog${url.search}`;
  return undefined;
}

export function blogPageSource(freshness: BlogFreshness): PageSource {
  return {
    key: blogPageKey,
    version: freshness.version,
    changes: freshness.changes,
    recheckAfterMs: freshness.recheckAfterMs,
  };
}
