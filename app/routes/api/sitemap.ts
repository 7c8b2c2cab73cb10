import { buildSitemap } from "#server/domain/blog/feeds.ts";
import type { Route } from "./+types/sitemap";

// docs/product.md §2.11: the same document as /sitemap.xml, by GET or POST.
async function answer({ context }: Route.LoaderArgs | Route.ActionArgs) {
  const { db, config } = context.services;
  return new Response(await buildSitemap(db, config.PUBLIC_URL), {
    headers: { "Content-Type": "application/xml; charset=utf-8" },
  });
}

export const loader = answer;
export const action = answer;
