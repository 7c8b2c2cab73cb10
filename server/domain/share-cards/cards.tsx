// The Open Graph share cards: satori lays the card out as SVG, resvg rasterises it
// to a 1200×630 PNG. A render costs tens of milliseconds of CPU, so renders run one at a time and
// the PNG bytes are kept by the card's version (what it draws), least recently used first out.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { ReactNode } from "react";
import type { Font } from "satori";
import {
  SHARE_CARD_HEIGHT,
  SHARE_CARD_WIDTH,
  shareCardVersion,
  type PostCard,
  type ShareCard,
  type SiteCard,
} from "#core/share-card.ts";

const BRAND_DARK = "#003d21";
const PRIMARY = "#00753f";
const TAGLINE = "Access Nigerian Content From Anywhere";

/**
 * Resolved from node_modules when the first card is drawn, by the source and the built server
 * alike (the build keeps dependencies external). satori reads WOFF and TTF, not WOFF2. Inter's
 * latin, latin-ext and vietnamese files together hold the Yoruba, Igbo and Hausa letters (ẹ, ọ,
 * ṣ, ŋ, ɓ, ƙ); a glyph in none of them (an emoji) shows as a box.
 */
async function loadFonts(): Promise<Font[]> {
  const require = createRequire(import.meta.url);
  const subsets = ["latin", "latin-ext", "vietnamese"] as const;
  const weights = [400, 800] as const;
  return Promise.all(
    subsets.flatMap((subset) =>
      weights.map(async (weight): Promise<Font> => {
        const file = require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`);
        // Apart, not one family: satori falls back to another family per glyph, not to another file.
        return { name: `Inter ${subset}`, data: await readFile(file), weight, style: "normal" };
      }),
    ),
  );
}

/** Titles run up to 300 characters (the admin schema's limit): longer ones are set smaller. */
function titleSize(title: string): number {
  if (title.length <= 50) return 68;
  if (title.length <= 100) return 54;
  if (title.length <= 180) return 42;
  return 32;
}

function Frame({ brand, children }: { brand: string; children: ReactNode }) {
  return (
    <div
      style={{
        width: SHARE_CARD_WIDTH,
        height: SHARE_CARD_HEIGHT,
        boxSizing: "border-box",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: "64px 72px",
        backgroundImage: `linear-gradient(135deg, ${BRAND_DARK} 0%, ${PRIMARY} 100%)`,
        color: "#ffffff",
        fontFamily: "Inter latin",
      }}
    >
      <div style={{ display: "flex", alignItems: "center", gap: 20 }}>
        <div style={{ width: 20, height: 56, borderRadius: 6, backgroundColor: "#ffffff" }} />
        <div style={{ fontSize: 40, fontWeight: 800 }}>{brand}</div>
      </div>
      {children}
    </div>
  );
}

function PostLayout({ card }: { card: PostCard }) {
  return (
    <Frame brand={card.brand}>
      <div
        style={{
          display: "flex",
          fontSize: titleSize(card.title),
          fontWeight: 800,
          lineHeight: 1.15,
          overflow: "hidden",
          maxHeight: 360,
        }}
      >
        {card.title}
      </div>
      <div style={{ display: "flex", justifyContent: "space-between", fontSize: 30, opacity: 0.9 }}>
        <div>{card.date}</div>
        <div>{`${card.brand} Blog`}</div>
      </div>
    </Frame>
  );
}

function SiteLayout({ card }: { card: SiteCard }) {
  return (
    <Frame brand={card.brand}>
      <div style={{ display: "flex", flexDirection: "column", gap: 24 }}>
        <div style={{ fontSize: 76, fontWeight: 800, lineHeight: 1.1 }}>{TAGLINE}</div>
        <div style={{ fontSize: 34, opacity: 0.9 }}>
          A Nigerian IP in seconds for DSTV, Showmax, Startimes and Nigerian prices.
        </div>
      </div>
      <div style={{ display: "flex", fontSize: 28, opacity: 0.9 }}>WireGuard · iOS · Android · PC · Mac</div>
    </Frame>
  );
}

export interface ShareCards {
  /** The card as PNG bytes: from memory when this version was drawn before. */
  png(card: ShareCard): Promise<Buffer>;
  /** How many cards this process has drawn (not answered from memory). */
  readonly drawn: number;
}

export function createShareCards(options: { maxEntries?: number } = {}): ShareCards {
  const maxEntries = options.maxEntries ?? 100;
  let fonts: Promise<Font[]> | undefined;
  const kept = new Map<string, Promise<Buffer>>();
  let queue: Promise<unknown> = Promise.resolve();
  let drawn = 0;

  async function render(card: ShareCard): Promise<Buffer> {
    drawn++;
    fonts ??= loadFonts();
    // Loaded with the first card drawn: most processes never draw one (a cached card is served).
    const [{ default: satori }, { Resvg }] = await Promise.all([import("satori"), import("@resvg/resvg-js")]);
    const element = card.kind === "post" ? <PostLayout card={card} /> : <SiteLayout card={card} />;
    const svg = await satori(element, {
      width: SHARE_CARD_WIDTH,
      height: SHARE_CARD_HEIGHT,
      fonts: await fonts,
    });
    return new Resvg(svg, { fitTo: { mode: "original" } }).render().asPng();
  }

  return {
    get drawn() {
      return drawn;
    },
    png(card) {
      const version = shareCardVersion(card);
      let png = kept.get(version);
      if (png) {
        kept.delete(version); // least recently used first
      } else {
        png = queue.then(() => render(card));
        queue = png.catch(() => undefined);
        png.catch(() => kept.delete(version));
      }
      kept.set(version, png);
      if (kept.size > maxEntries) kept.delete(kept.keys().next().value!);
      return png;
    },
  };
}
