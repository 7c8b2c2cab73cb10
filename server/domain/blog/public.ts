// What the public reads from blog_posts (docs/product.md §8.1). Every query here applies the same
// visibility rule, so a draft, a deleted post or a scheduled one never leaks through a side door.
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
// Types only from client.ts: the route modules import this file and it reaches the browser bundle.
import type { Executor } from "#server/db/client.ts";
import { blogPosts, blogPostsVersion, type BlogPost } from "#server/db/schema/blog.ts";

export const BLOG_PAGE_SIZE = 10;

export type PublicPost = BlogPost & { publishedAt: Date };
export type PostLink = Pick<BlogPost, "id" | "title" | "slug">;

/** Published, not deleted, and `published_at` set and not in the future (a scheduled post appears on its own). */
export function isVisible(now: Date): SQL {
  return and(
    eq(blogPosts.status, "published"),
    isNull(blogPosts.deletedAt),
    isNotNull(blogPosts.publishedAt),
    lte(blogPosts.publishedAt, now),
  )!;
}

/**
 * `?page=` as a page number: absent means 1; anything but a plain positive integer
 * ("0", "-1", "2.5", "abc", "1e3", huge numbers) is `undefined`, which the page answers with 404.
 */
export function parsePageParam(value: string | null): number | undefined {
  if (value === null) return 1;
  if (!/^[1-9]\d{0,5}$/.test(value)) return undefined;
  return Number(value);
}

export interface PostListPage {
  posts: PublicPost[];
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/** One page of visible posts, newest first; ties on `published_at` are broken by id so paging is stable. */
export async function listVisiblePosts(db: Executor, page: number, now = new Date()): Promise<PostListPage> {
  const rows = await db
    .select()
    .from(blogPosts)
    .where(isVisible(now))
    .orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id))
    .limit(BLOG_PAGE_SIZE + 1)
    .offset((page - 1) * BLOG_PAGE_SIZE);
  return {
    posts: rows.slice(0, BLOG_PAGE_SIZE) as PublicPost[],
    page,
    hasPrevious: page > 1,
    hasNext: rows.length > BLOG_PAGE_SIZE,
  };
}

export async function findVisiblePostBySlug(
  db: Executor,
  slug: string,
  now = new Date(),
): Promise<PublicPost | undefined> {
  const [post] = await db
    .select()
    .from(blogPosts)
    .where(and(eq(blogPosts.slug, slug), isVisible(now)))
    .limit(1);
  return post as PublicPost | undefined;
}

export interface AdjacentPosts {
  /** The nearest newer visible post (the link labelled Previous). */
  previous: PostLink | null;
  /** The nearest older visible post (the link labelled Next). */
  next: PostLink | null;
}

/**
 * docs/product.md §8.3: Previous goes to the newer post, Next to the older one, one post each.
 * Order is (published_at, id), the list's order, so two posts published at the same instant
 * still link to each other instead of being skipped.
 */
export async function findAdjacentPosts(
  db: Executor,
  post: Pick<PublicPost, "id" | "publishedAt">,
  now = new Date(),
): Promise<AdjacentPosts> {
  const link = { id: blogPosts.id, title: blogPosts.title, slug: blogPosts.slug };
  const at = post.publishedAt;
  const [[previous], [next]] = await Promise.all([
    db
      .select(link)
      .from(blogPosts)
      .where(
        and(
          isVisible(now),
          or(gt(blogPosts.publishedAt, at), and(eq(blogPosts.publishedAt, at), gt(blogPosts.id, post.id))),
        ),
      )
      .orderBy(asc(blogPosts.publishedAt), asc(blogPosts.id))
      .limit(1),
    db
      .select(link)
      .from(blogPosts)
      .where(
        and(
          isVisible(now),
          or(lt(blogPosts.publishedAt, at), and(eq(blogPosts.publishedAt, at), lt(blogPosts.id, post.id))),
        ),
      )
      .orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id))
      .limit(1),
  ]);
  return { previous: previous ?? null, next: next ?? null };
}

export type SitemapPost = Pick<BlogPost, "slug" | "title" | "content" | "author" | "updatedAt"> & {
  publishedAt: Date;
};

/** Every visible post, newest first, for the sitemap and the feed. */
export async function listAllVisiblePosts(db: Executor, now = new Date()): Promise<SitemapPost[]> {
  const rows = await db
    .select({
      slug: blogPosts.slug,
      title: blogPosts.title,
      content: blogPosts.content,
      author: blogPosts.author,
      publishedAt: blogPosts.publishedAt,
      updatedAt: blogPosts.updatedAt,
    })
    .from(blogPosts)
    .where(isVisible(now))
    .orderBy(desc(blogPosts.publishedAt), desc(blogPosts.id));
  return rows as SitemapPost[];
}

/** The later of a post's update and publication: what `lastmod` and feeds call "modified". */
export function lastModified(post: { updatedAt: Date; publishedAt: Date }): Date {
  return post.updatedAt > post.publishedAt ? post.updatedAt : post.publishedAt;
}

export interface BlogFingerprint {
  /**
   * Changes whenever the set of visible posts, or any of them, may have changed: the
   * trigger-maintained write version of blog_posts and the next scheduled publication.
   */
  digest: string;
  /** The last write to blog_posts or the newest visible publication, whichever is later. */
  lastModified: Date | null;
  /**
   * The earliest `published_at` still in the future among published, non-deleted posts: until
   * then (and while `digest` holds) the visible set cannot change without a write.
   */
  validUntil: Date | null;
}

interface FingerprintRow {
  version: string | null;
  changed: string | null;
  changed_at: string | Date | null;
  next_publish_at: string | Date | null;
  latest_published_at: string | Date | null;
}

const asDate = (value: string | Date | null | undefined) =>
  value === null || value === undefined ? null : new Date(value);

/**
 * What every public blog output is made of, in O(1): one primary-key read of the version row
 * that a statement-level trigger bumps on any write to blog_posts (migration 0003, raw SQL
 * included), plus two reads at the ends of the visible-posts index. Under the same version,
 * the visible set only grows when `now` passes the next scheduled `published_at`, which is
 * part of the digest, so a scheduled post changes it by itself (decision 022).
 */
export async function blogFingerprint(db: Executor, now = new Date()): Promise<BlogFingerprint> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const published = sql`${blogPosts.status} = 'published' and ${blogPosts.deletedAt} is null`;
  const result = (await db.execute(
    sql`select v.version::text as version,
        (extract(epoch from v.changed_at) * 1000000)::bigint::text as changed,
        v.changed_at,
        (select min(${blogPosts.publishedAt}) from ${blogPosts} where ${published} and ${blogPosts.publishedAt} > ${at}) as next_publish_at,
        (select max(${blogPosts.publishedAt}) from ${blogPosts} where ${published} and ${blogPosts.publishedAt} <= ${at}) as latest_published_at
      from (select 1) as one left join ${blogPostsVersion} as v on v.id = 1`,
  )) as unknown as { rows: FingerprintRow[] };
  const [row] = result.rows;
  const validUntil = asDate(row?.next_publish_at);
  const changedAt = asDate(row?.changed_at);
  const latest = asDate(row?.latest_published_at);
  const lastModified =
    changedAt && latest ? (changedAt > latest ? changedAt : latest) : (changedAt ?? latest);
  return {
    digest: `${row?.version ?? 0}.${row?.changed ?? 0}:${validUntil?.getTime() ?? "none"}`,
    lastModified,
    validUntil,
  };
}
