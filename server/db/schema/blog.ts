import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

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
