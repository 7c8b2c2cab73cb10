// The page cache (server/http/page-cache.ts) in front of an in-process app, on a free port:
// its HTTP behaviour on either database, without the whole host.
import express from "express";
import type { AddressInfo } from "node:net";
import type { Database, DatabaseKind } from "#server/db/client.ts";
import { watchBlogFreshness } from "#server/domain/blog/freshness.ts";
import { blogPageSource } from "#server/http/blog-pages.ts";
import { createPageCache, type PageSource } from "#server/http/page-cache.ts";

export interface CachedApp {
  url: string;
  close(): Promise<void>;
}

export async function servePageCache(options: {
  handle: (request: Request) => Promise<Response>;
  sources: PageSource[];
  now?: () => number;
}): Promise<CachedApp> {
  const cache = createPageCache({
    ...options,
    publicUrl: "http://localhost:3000",
    handle: (request) => options.handle(request),
  });
  const server = express().use(cache.serve).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The blog's page source on this database, as the host builds it; `close` ends its listener. */
export async function blogSource(
  db: Database,
  kind: DatabaseKind,
): Promise<PageSource & { close(): Promise<void> }> {
  const freshness = await watchBlogFreshness(db, kind);
  return { ...blogPageSource(freshness), close: freshness.close };
}
