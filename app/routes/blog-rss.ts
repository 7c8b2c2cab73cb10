import { buildRssFeed } from "#server/domain/blog/feeds.ts";
import { xmlResponse } from "#server/domain/blog/xml-response.ts";
import type { Route } from "./+types/blog-rss";

export function loader({ request, context }: Route.LoaderArgs) {
  const { db, config } = context.services;
  return xmlResponse(request, context.services, {
    kind: "rss",
    contentType: "application/rss+xml; charset=utf-8",
    build: () => buildRssFeed(db, { publicUrl: config.PUBLIC_URL, brandName: config.BRAND_NAME }),
  });
}
