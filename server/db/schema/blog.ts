import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const POST_STATUSES = ["draft", "published"] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const blogPosts = pgTable(
  "blog_posts",
  {
    id: uuid().primaryKey().defaultRandom(),
    title: text().notNull(),
    slug: text().notNull().unique(),
    content: text().notNull().default(""),
    author: text().notNull().default("NaijaLink Team"),
    status: text({ enum: POST_STATUSES }).notNull().default("draft"),
    publishedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    check("blog_posts_status_check", sql`${table.status} in ('draft', 'published')`),
    index("blog_posts_visible_idx")
      .on(table.publishedAt.desc())
      .where(sql`${table.status} = 'published' and ${table.deletedAt} is null`),
  ],
);

export type BlogPost = typeof blogPosts.$inferSelect;

/**
 * One row whose `version` a statement-level trigger on blog_posts bumps on every insert,
 * update, delete or truncate (migration 0003), however the write is made: the public pages'
 * freshness check reads this row instead of aggregating every post.
 */
export const blogPostsVersion = pgTable(
  "blog_posts_version",
  {
    id: integer().primaryKey().default(1),
    version: bigint({ mode: "number" }).notNull().default(0),
    changedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check("blog_posts_version_single_row", sql`${table.id} = 1`)],
);
