// How current the public blog is (decisions 023, 081): `blogFingerprint` (the trigger-maintained
// version of blog_posts and the next scheduled publication) and a counter of the trigger's
// notifications. Whatever keeps public blog outputs (the HTTP page cache) asks this.
import type { Database, DatabaseKind } from "#server/db/client.ts";
import { listenForNotifications } from "#server/db/notifications.ts";
import type { Logger } from "#server/logger.ts";
import { blogFingerprint, type BlogFingerprint } from "./public.ts";

export const BLOG_CHANGES_CHANNEL = "blog_posts_changed";

/**
 * On PostgreSQL a notification from another process arrives a few milliseconds after its commit,
 * or never if the listening connection drops: a page answered on the counter alone is checked
 * against the version again after this long, which bounds how late any change is seen.
 */
export const POSTGRES_RECHECK_AFTER_MS = 1_000;

export interface BlogFreshness {
  /** The blog's version at `now`: equal digests mean the same visible posts. */
  version(now: Date): Promise<BlogFingerprint>;
  /** Bumped by every committed statement that wrote blog_posts, in any app process. */
  changes: { readonly count: number };
  /**
   * Unset on PGlite: there the trigger's NOTIFY (sent at commit) is delivered while the COMMIT's
   * answer is parsed, before the writing call returns, so the counter is exact. Set on
   * PostgreSQL, where the counter may lag (see POSTGRES_RECHECK_AFTER_MS).
   */
  recheckAfterMs?: number;
  close(): Promise<void>;
}

/** LISTENs for the blog trigger's notifications through the one listener helper (db/notifications.ts). */
export async function watchBlogFreshness(
  db: Database,
  kind: DatabaseKind,
  logger?: Pick<Logger, "info" | "warn">,
): Promise<BlogFreshness> {
  const changes = { count: 0 };
  const bump = () => {
    changes.count += 1;
  };
  const listener = await listenForNotifications(db, kind, BLOG_CHANGES_CHANNEL, {
    onNotify: bump,
    // Notifications sent while the connection was down are lost: every kept page is suspect.
    onResumed: () => {
      logger?.info("listening for blog changes again");
      bump();
    },
    onError: (error) => logger?.warn({ err: error }, "the blog change listener lost its connection"),
  });
  return {
    version: (now) => blogFingerprint(db, now),
    changes,
    recheckAfterMs: kind === "postgres" ? POSTGRES_RECHECK_AFTER_MS : undefined,
    close: () => listener.close(),
  };
}
