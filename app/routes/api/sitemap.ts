import { buildSitemap } from "#server/domain/blog/feeds.ts";
import { xmlResponse } from "#server/domain/blog/xml-response.ts";
import type { Route } from "./+types/sitemap";

// Spec §7 "sitemap | none | XML text": the same document as /sitemap.xml, by GET or POST.
function answer({ request, context }: Route.LoaderArgs | Route.ActionArgs) {
  const { db, config } = context.services;
  return xmlResponse(request, context.services, {
    kind: "sitemap",
    contentType: "application/xml; charset=utf-8",
    build: () => buildSitemap(db, config.PUBLIC_URL),
  });
}

export const loader = answer;
export const action = answer;
