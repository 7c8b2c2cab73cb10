// The share cards: `/og.png` for the site, `/blog/{slug}/og.png` for a visible post.
// Page meta links each with `?v=` the digest of what it draws; that exact URL never changes its
// bytes, so it may be kept for a year. Any other `v` (or none) gets the current card, revalidated.
import { findVisiblePostBySlug } from "#server/domain/blog/public.ts";
import { postCard, shareCardVersion, siteCard, type ShareCard } from "#core/share-card.ts";
import type { Route } from "./+types/share-card";

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { config, db, shareCards } = context.services;
  let card: ShareCard = siteCard(config.BRAND_NAME);
  if (params.slug !== undefined) {
    const post = await findVisiblePostBySlug(db, params.slug);
    if (!post) return new Response("Not Found", { status: 404, headers: { "Cache-Control": "no-store" } });
    card = postCard(config.BRAND_NAME, post);
  }
  const version = shareCardVersion(card);
  const etag = `"${version}"`;
  const headers = {
    "Content-Type": "image/png",
    ETag: etag,
    "Cache-Control":
      new URL(request.url).searchParams.get("v") === version
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  const png = await shareCards.png(card);
  return new Response(new Uint8Array(png), { headers: { ...headers, "Content-Length": String(png.length) } });
}
