import type { MetaDescriptor } from "react-router";
import type { PublicConfig } from "./public-config.ts";
import {
  SHARE_CARD_HEIGHT,
  SHARE_CARD_WIDTH,
  shareCardAlt,
  shareCardPath,
  siteCard,
  type ShareCard,
} from "#core/share-card.ts";

interface PageMeta {
  /** Page title without the brand; omit for the home page. */
  title?: string;
  description: string;
  path: string;
  type?: "website" | "article";
  /** The page's share card; the site's card when omitted. */
  card?: { card: ShareCard; slug?: string };
}

type MatchLike = { id: string; data?: unknown } | undefined;

export function rootPublicConfig(matches: MatchLike[]): PublicConfig | undefined {
  const root = matches.find((match) => match?.id === "root");
  return (root?.data as { publicConfig?: PublicConfig } | undefined)?.publicConfig;
}

/** Title, description, canonical, Open Graph tags and the share card for one page. */
export function pageMeta(page: PageMeta, matches: MatchLike[]): MetaDescriptor[] {
  const config = rootPublicConfig(matches);
  const brand = config?.brandName ?? "NaijaLink";
  const title = page.title ? `${page.title} | ${brand}` : `${brand} - Access Nigerian Content From Anywhere`;
  const url = `${config?.publicUrl ?? ""}${page.path}`;
  const { card, slug } = page.card ?? { card: siteCard(brand) };
  return [
    { title },
    { name: "description", content: page.description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:title", content: title },
    { property: "og:description", content: page.description },
    { property: "og:url", content: url },
    { property: "og:type", content: page.type ?? "website" },
    { property: "og:site_name", content: brand },
    { property: "og:image", content: `${config?.publicUrl ?? ""}${shareCardPath(card, slug)}` },
    { property: "og:image:type", content: "image/png" },
    { property: "og:image:width", content: String(SHARE_CARD_WIDTH) },
    { property: "og:image:height", content: String(SHARE_CARD_HEIGHT) },
    { property: "og:image:alt", content: shareCardAlt(card) },
    { name: "twitter:card", content: "summary_large_image" },
  ];
}

/** A staff console page: titled, never indexed. */
export function adminPageMeta(title: string, path: string, matches: MatchLike[]): MetaDescriptor[] {
  return [
    ...pageMeta({ title, description: `${title} in the staff console.`, path }, matches),
    { name: "robots", content: "noindex" },
  ];
}
