// How current the public blog is (decision 023): `blogFingerprint` (the trigger-maintained
// version of blog_posts and the next scheduled publication) and, on PGlite, a counter of the
// trigger's notifications. Whatever keeps public blog outputs (the HTTP page cache) asks this.
import type { PGlite } from "@electric-sql/pglite";
import type { DatabaseKind, Executor } from "#server/db/client.ts";
import { blogFingerprint, type BlogFingerprint } from "./public.ts";

export const BLOG_CHANGES_CHANNEL = "blog_posts_changed";

export interface BlogFreshness {
  /** The blog's version at `now`: equal digests mean the same visible posts. */
  version(now: Date): Promise<BlogFingerprint>;
  /**
   * Bumped by every committed statement that wrote blog_posts, before the writing call returns
   * (PGlite only). While it holds, and until the next scheduled publication, nothing changed.
   */
  changes?: { readonly count: number };
}

/**
 * On PGlite the database is one in-process session that every write goes through, and the
 * trigger's NOTIFY (sent at commit) is delivered while the COMMIT's answer is parsed, before
 * the writing call returns: a counter of notifications is then an exact, query-free freshness
 * signal. On PostgreSQL, writers on other connections or processes are notified asynchronously,
 * so there is no counter and every check reads the version row (decision 022).
 */
export async function watchBlogFreshness(db: Executor, kind: DatabaseKind): Promise<BlogFreshness> {
  const version = (now: Date) => blogFingerprint(db, now);
  const client = (db as unknown as { $client?: Pick<PGlite, "listen"> }).$client;
  if (kind !== "pglite" || typeof client?.listen !== "function") return { version };
  const changes = { count: 0 };
  await client.listen(BLOG_CHANGES_CHANNEL, () => {
    changes.count += 1;
  });
  return { version, changes };
}
