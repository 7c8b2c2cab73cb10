import { buildSitemap } from "#server/domain/blog/feeds.ts";
import type { Route } from "./+types/sitemap-xml";

// Served as real XML (docs/product.md §2.11): crawlers and browsers get the document itself.
export async function loader({ context }: Route.LoaderArgs) {
  const { db, config } = context.services;
  return new Response(await buildSitemap(db, config.PUBLIC_URL), {
    headers: { "Content-Type": "application/xml; charset=utf-8" },
  });
}
