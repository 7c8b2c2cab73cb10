// Sample posts so a fresh install's blog is not empty (SEED_SAMPLE_CONTENT=false turns them off
// before the first start). They are ordinary rows: staff can edit, unpublish or delete them like
// any other post. Only written when blog_posts is empty. Readers see ordinary posts; the admin
// labels them as samples while their text is still the shipped one.
import { sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { blogPosts } from "#server/db/schema/blog.ts";
import { DAY_MS } from "#server/domain/time.ts";

export const SAMPLE_POSTS: Array<{ title: string; slug: string; daysAgo: number; content: string }> = [
  {
    title: "How to Watch DSTV Abroad Without Buffering",
    slug: "watch-dstv-abroad",
    daysAgo: 2,
    content: `Living in London, Houston or Dubai does not mean giving up **Super Sport**, *Big Brother Naija* or your favourite Nollywood series. DSTV Now and Showmax check where you are connecting from, so from abroad they show a "not available in your region" message.

## What you need

- A DSTV or Showmax subscription in Nigerian naira
- A Nigerian IP address (that is what NaijaLink gives you)
- The free WireGuard app on your phone, laptop or TV box

## Step by step

1. Choose a plan on the pricing page and pay.
2. Scan the QR code or download the config file.
3. Switch the tunnel on in WireGuard and open DSTV Now.

| Device | App | Works with NaijaLink |
| --- | --- | --- |
| iPhone / iPad | WireGuard (App Store) | Yes |
| Android | WireGuard (Play Store) | Yes |
| Windows / macOS | WireGuard | Yes |

Tip: if the picture stutters, lower the stream quality once; it adapts again after a minute.[^speed]

[^speed]: Streaming in HD needs about 5 Mbit/s of download speed on your home connection.
`,
  },
  {
    title: "Paying Nigerian Prices for Streaming From Overseas",
    slug: "nigerian-prices-overseas",
    daysAgo: 9,
    content: `Streaming services price by country. The same Showmax plan can cost several times more in pounds or dollars than in naira. With a Nigerian IP you see and pay the Nigerian price, with your Nigerian card.

## A quick checklist

- [x] Keep your Nigerian bank card active
- [x] Connect to NaijaLink before you open the store page
- [ ] Cancel the more expensive overseas plan

~~Paying the overseas price~~ is no longer necessary. Read the provider's terms first: https://www.showmax.com
`,
  },
  {
    title: "Watching Nollywood and Nigerian News From Anywhere",
    slug: "nollywood-news-anywhere",
    daysAgo: 16,
    content: `Channels Television, Arise News and the big Nollywood catalogues are a tap away when your connection comes out in Lagos.

### Good to know

- Your home broadband stays fast: WireGuard is light on battery and bandwidth.
- One plan covers a phone, and the family plan covers three devices.
- Questions? Visit the [contact page](/contact) and we answer within a day.
`,
  },
];

/** A post that is still a shipped sample: its slug and its text as the seed wrote them. */
export function isSamplePost(post: { slug: string; content: string }): boolean {
  return SAMPLE_POSTS.some((sample) => sample.slug === post.slug && sample.content === post.content);
}

/**
 * Inserts the sample posts when there are no posts at all (not even drafts or deleted ones,
 * so staff who removed them never see them come back). Returns how many were written.
 */
export async function seedSamplePosts(db: Database, now = new Date()): Promise<number> {
  return db.transaction(async (tx) => {
    // Two processes starting on one fresh database must not both seed.
    await tx.execute(sql`select pg_advisory_xact_lock(7241181)`);
    const [existing] = await tx.select({ count: sql<number>`count(*)::int` }).from(blogPosts);
    if ((existing?.count ?? 0) > 0) return 0;
    const rows = SAMPLE_POSTS.map((post) => {
      const at = new Date(now.getTime() - post.daysAgo * DAY_MS);
      return {
        title: post.title,
        slug: post.slug,
        content: post.content,
        status: "published" as const,
        publishedAt: at,
        createdAt: at,
        updatedAt: at,
      };
    });
    await tx.insert(blogPosts).values(rows).onConflictDoNothing({ target: blogPosts.slug });
    return rows.length;
  });
}
