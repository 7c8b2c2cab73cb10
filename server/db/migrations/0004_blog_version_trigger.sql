-- Decision 022: every statement that writes blog_posts (insert, update, delete, truncate), from
-- the admin API or raw SQL alike, bumps the single row of blog_posts_version, so the public
-- pages' freshness check is one primary-key read instead of an aggregate over every post.
-- Statement-level: a bulk write bumps once. It also NOTIFYs blog_posts_changed. An upsert recreates the row if it was removed.
INSERT INTO "blog_posts_version" ("id", "version", "changed_at") VALUES (1, 1, clock_timestamp())
ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "blog_posts_bump_version"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "blog_posts_version" AS v ("id", "version", "changed_at") VALUES (1, 1, clock_timestamp())
  ON CONFLICT ("id") DO UPDATE SET "version" = v."version" + 1, "changed_at" = clock_timestamp();
  -- Delivered at commit (never on rollback); on PGlite it reaches the page cache before the
  -- writing call returns, so a hit needs no query there.
  PERFORM pg_notify('blog_posts_changed', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "blog_posts_bump_version"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "blog_posts"
FOR EACH STATEMENT EXECUTE FUNCTION "blog_posts_bump_version"();
