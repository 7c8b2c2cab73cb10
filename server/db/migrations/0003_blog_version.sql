CREATE TABLE "blog_posts_version" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "blog_posts_version_single_row" CHECK ("blog_posts_version"."id" = 1)
);
