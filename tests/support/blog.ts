// Blog posts written straight into blog_posts, for the public blog tests.
import type { Database } from "#server/db/client.ts";
import { blogPosts } from "#server/db/schema/blog.ts";

export const HOUR_MS = 60 * 60 * 1000;

export interface PostFixture {
  title: string;
  slug: string;
  content?: string;
  author?: string;
  status?: "draft" | "published";
  publishedAt?: Date | null;
  updatedAt?: Date;
  deletedAt?: Date | null;
}

export async function insertPosts(db: Database, posts: PostFixture[]): Promise<void> {
  if (posts.length === 0) return;
  await db.insert(blogPosts).values(
    posts.map((post) => ({
      title: post.title,
      slug: post.slug,
      content: post.content ?? `Body of ${post.title}.`,
      author: post.author ?? "NaijaLink Team",
      status: post.status ?? "published",
      publishedAt: post.publishedAt === undefined ? new Date(Date.now() - HOUR_MS) : post.publishedAt,
      updatedAt: post.updatedAt ?? post.publishedAt ?? new Date(Date.now() - HOUR_MS),
      deletedAt: post.deletedAt ?? null,
    })),
  );
}

/**
 * 23 visible posts, `visible-01` the oldest and `visible-23` the newest (an hour apart, the
 * newest a day ago), plus one of each kind of hidden post placed where it would otherwise show
 * up first or in between: a draft, a deleted post, a scheduled (future) post, a published post
 * without a date, and a deleted draft.
 */
export function visibilityFixture(now = Date.now()): { visible: PostFixture[]; hidden: PostFixture[] } {
  const newest = now - 24 * HOUR_MS;
  const visible = Array.from({ length: 23 }, (_, index) => {
    const number = String(index + 1).padStart(2, "0");
    return {
      title: `Visible post ${number}`,
      slug: `visible-${number}`,
      publishedAt: new Date(newest - (22 - index) * HOUR_MS),
    };
  });
  const hidden: PostFixture[] = [
    {
      title: "Hidden draft",
      slug: "hidden-draft",
      status: "draft",
      publishedAt: new Date(newest + HOUR_MS / 2),
    },
    {
      title: "Hidden deleted",
      slug: "hidden-deleted",
      publishedAt: new Date(newest - 10.5 * HOUR_MS),
      deletedAt: new Date(now - HOUR_MS),
    },
    { title: "Hidden future", slug: "hidden-future", publishedAt: new Date(now + 48 * HOUR_MS) },
    { title: "Hidden undated", slug: "hidden-undated", publishedAt: null },
    {
      title: "Hidden deleted draft",
      slug: "hidden-deleted-draft",
      status: "draft",
      publishedAt: new Date(newest - 30 * HOUR_MS),
      deletedAt: new Date(now - HOUR_MS),
    },
  ];
  return { visible, hidden };
}

/** `/blog/{slug}` links in the page's main content (cards, previous/next), in document order. */
export function postLinks(html: string): string[] {
  const main = html.slice(html.indexOf('<main id="main"'), html.indexOf("</main>"));
  return [...main.matchAll(/href="\/blog\/([^"?#]+)"/g)].map((match) => match[1]!);
}

export function decodeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export function metaContent(html: string, attribute: "name" | "property", key: string): string | undefined {
  const match = new RegExp(`<meta ${attribute}="${key}" content="([^"]*)"`).exec(html);
  return match ? decodeHtml(match[1]!) : undefined;
}
