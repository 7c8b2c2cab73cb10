// The staff's blog operations (blog-admin/*, docs/product.md §9.3 and §10.1). Callers have passed requireStaff.
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import { isUniqueViolation, type Executor } from "#server/db/client.ts";
import { blogPosts, POST_STATUSES, type BlogPost } from "#server/db/schema/blog.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { isSamplePost } from "./seed.ts";

export const DEFAULT_AUTHOR = "NaijaLink Team";

/** A post as the admin API returns it: the snake_case field names of docs/product.md §10.1. */
export interface AdminPost {
  id: string;
  title: string;
  slug: string;
  content: string;
  author: string;
  status: BlogPost["status"];
  published_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Still a sample post as a fresh install ships it: labelled in the admin only. */
  sample: boolean;
  /** Published but dated after `now`: the blog shows it from that date on (badged Scheduled). */
  scheduled: boolean;
}

export function toAdminPost(post: BlogPost, now = new Date()): AdminPost {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    content: post.content,
    author: post.author,
    status: post.status,
    published_at: post.publishedAt?.toISOString() ?? null,
    created_at: post.createdAt.toISOString(),
    updated_at: post.updatedAt.toISOString(),
    deleted_at: post.deletedAt?.toISOString() ?? null,
    sample: isSamplePost(post),
    scheduled: post.status === "published" && post.publishedAt !== null && post.publishedAt > now,
  };
}

const postId = z.uuid({ message: "must be the id of a post" });
const status = z.enum(POST_STATUSES, { message: 'must be "draft" or "published"' });
const title = z.string().trim().min(1, "must not be empty").max(300);
const slug = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200)
  .regex(/^[\w-]+$/, "may hold only letters, digits, underscores and hyphens");
const content = z.string().max(200_000);
const author = z
  .string()
  .trim()
  .max(200)
  .transform((value) => value || DEFAULT_AUTHOR);
/** An ISO date or date-time; an empty string means "no date" (docs/product.md §9.4). */
const publishedAt = z.union([z.string(), z.null()]).transform((value, ctx) => {
  if (value === null || value.trim() === "") return null;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date or null" });
    return z.NEVER;
  }
  return date;
});

export const listPostsInput = z.object({}).loose();

export const createPostInput = z.object({
  title,
  slug,
  content: content.default(""),
  author: author.default(DEFAULT_AUTHOR),
  status: status.default("draft"),
  published_at: publishedAt.optional(),
});

export const updatePostInput = z.object({
  id: postId,
  title: title.optional(),
  slug: slug.optional(),
  content: content.optional(),
  author: author.optional(),
  status: status.optional(),
  published_at: publishedAt.optional(),
});

export const deletePostInput = z.object({
  id: postId,
  restore: z.boolean().default(false),
});

/** Every post, drafts and deleted ones included (the list page filters by tab). */
export async function listPosts(db: Executor, now = new Date()): Promise<AdminPost[]> {
  const rows = await db.select().from(blogPosts).orderBy(desc(blogPosts.createdAt), desc(blogPosts.id));
  return rows.map((row) => toAdminPost(row, now));
}

export async function findPost(db: Executor, id: string): Promise<AdminPost | undefined> {
  if (!postId.safeParse(id).success) return undefined;
  const [row] = await db.select().from(blogPosts).where(eq(blogPosts.id, id));
  return row && toAdminPost(row);
}

const slugTaken = (value: string) =>
  conflict(`A post with the slug "${value}" already exists. Choose another URL slug.`);

/** Duplicate slugs become a clear 409, checked first and guaranteed by the unique index. */
async function writePost(value: string | undefined, write: () => Promise<BlogPost | undefined>) {
  try {
    return await write();
  } catch (error) {
    if (value !== undefined && isUniqueViolation(error)) throw slugTaken(value);
    throw error;
  }
}

export async function createPost(db: Executor, input: z.infer<typeof createPostInput>): Promise<AdminPost> {
  const now = new Date();
  const published = input.published_at ?? null;
  const row = await writePost(input.slug, async () => {
    const [created] = await db
      .insert(blogPosts)
      .values({
        title: input.title,
        slug: input.slug,
        content: input.content,
        author: input.author,
        status: input.status,
        // Publishing without a date means "now".
        publishedAt: input.status === "published" && !published ? now : published,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return created;
  });
  return toAdminPost(row!);
}

export async function updatePost(db: Executor, input: z.infer<typeof updatePostInput>): Promise<AdminPost> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(blogPosts).where(eq(blogPosts.id, input.id)).for("update");
    if (!current) throw notFound("There is no post with this id.");
    const nextStatus = input.status ?? current.status;
    if (current.deletedAt && nextStatus !== current.status) {
      throw conflict("This post is deleted: restore it before publishing or unpublishing it.");
    }
    let nextPublishedAt = input.published_at === undefined ? current.publishedAt : input.published_at;
    const now = new Date();
    if (nextStatus === "published" && !nextPublishedAt) nextPublishedAt = now;
    const row = await writePost(input.slug, async () => {
      const [updated] = await tx
        .update(blogPosts)
        .set({
          title: input.title,
          slug: input.slug,
          content: input.content,
          author: input.author,
          status: nextStatus,
          publishedAt: nextPublishedAt,
          updatedAt: now,
        })
        .where(eq(blogPosts.id, input.id))
        .returning();
      return updated;
    });
    return toAdminPost(row!);
  });
}

/** Soft delete sets `deleted_at`; restore clears it. Repeating either changes nothing. */
export async function deletePost(db: Executor, input: z.infer<typeof deletePostInput>): Promise<AdminPost> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(blogPosts).where(eq(blogPosts.id, input.id)).for("update");
    if (!current) throw notFound("There is no post with this id.");
    const alreadyThere = input.restore ? !current.deletedAt : Boolean(current.deletedAt);
    if (alreadyThere) return toAdminPost(current);
    const now = new Date();
    const [updated] = await tx
      .update(blogPosts)
      .set({ deletedAt: input.restore ? null : now, updatedAt: now })
      .where(eq(blogPosts.id, input.id))
      .returning();
    return toAdminPost(updated!);
  });
}
