import { buildSitemap } from "#server/domain/blog/feeds.ts";
import { xmlResponse } from "#server/domain/blog/xml-response.ts";
import type { Route } from "./+types/sitemap-xml";

// Served as real XML (DESIGN.md §2a): crawlers and browsers get the document itself.
export function loader({ request, context }: Route.LoaderArgs) {
  const { db, config } = context.services;
  return xmlResponse(request, context.services, {
    kind: "sitemap",
    contentType: "application/xml; charset=utf-8",
    build: () => buildSitemap(db, config.PUBLIC_URL),
  });
}
