// The Open Graph share cards' addresses. A card's URL carries a digest of exactly
// what it draws, so a changed title, date or brand is a new URL and a cached copy is never stale.
// Pure and dependency-free: page meta (browser and server) and the card routes share it.
import { formatLongDate } from "./format.ts";

export const SHARE_CARD_WIDTH = 1200;
export const SHARE_CARD_HEIGHT = 630;

/** Bumped when the cards' layout changes, so every card gets a new address. */
const LAYOUT = "1";

export interface SiteCard {
  kind: "site";
  brand: string;
}

export interface PostCard {
  kind: "post";
  brand: string;
  title: string;
  /** The post's publication date as the card prints it (en-US, UTC). */
  date: string;
}

export type ShareCard = SiteCard | PostCard;

export function siteCard(brand: string): SiteCard {
  return { kind: "site", brand };
}

export function postCard(brand: string, post: { title: string; publishedAt: Date | string }): PostCard {
  return { kind: "post", brand, title: post.title, date: formatLongDate(post.publishedAt) };
}

/** FNV-1a (64-bit) of the card's inputs: a cache key and URL version, not a security measure. */
export function shareCardVersion(card: ShareCard): string {
  const text = [LAYOUT, ...Object.values(card)].join("\u0000");
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  }
  return hash.toString(36);
}

/** The card's path with its version: `/og.png?v=…` or `/blog/{slug}/og.png?v=…`. */
export function shareCardPath(card: ShareCard, slug?: string): string {
  const base = card.kind === "post" ? `/blog/${slug}/og.png` : "/og.png";
  return `${base}?v=${shareCardVersion(card)}`;
}

/** What a screen reader or a link preview says instead of the picture. */
export function shareCardAlt(card: ShareCard): string {
  return card.kind === "post"
    ? `${card.title}: a ${card.brand} blog post from ${card.date}`
    : `${card.brand}: Access Nigerian Content From Anywhere`;
}
