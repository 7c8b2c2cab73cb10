import { buildRssFeed } from "#server/domain/blog/feeds.ts";
import type { Route } from "./+types/blog-rss";

export async function loader({ context }: Route.LoaderArgs) {
  const { db, config } = context.services;
  const site = { publicUrl: config.PUBLIC_URL, brandName: config.BRAND_NAME };
  return new Response(await buildRssFeed(db, site), {
    headers: { "Content-Type": "application/rss+xml; charset=utf-8" },
  });
}
