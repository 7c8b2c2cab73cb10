import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { preparedOnce, type Database } from "#server/db/client.ts";
import { rateLimit } from "#server/db/schema/index.ts";

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * Fixed-window counter in the database, so every app process shares it.
 * The upsert is atomic: concurrent requests can never both take the last slot.
 */
export async function consumeRateLimit(
  db: Database,
  key: string,
  options: { limit: number; windowMs: number; now?: number },
): Promise<RateLimitResult> {
  const now = options.now ?? Date.now();
  const [row] = await countRequest(db).execute({
    id: crypto.randomUUID(),
    key: rateLimitKey(key),
    now,
    windowStart: now - options.windowMs,
  });
  return {
    allowed: row!.count <= options.limit,
    remaining: Math.max(0, options.limit - row!.count),
    retryAfterSeconds: Math.max(1, Math.ceil((row!.lastRequest + options.windowMs - now) / 1000)),
  };
}

/** Every rate-limited request runs it: built once (decision 118). */
const countRequest = preparedOnce((db) =>
  db
    .insert(rateLimit)
    .values({
      id: sql.placeholder("id"),
      key: sql.placeholder("key"),
      count: 1,
      lastRequest: sql.placeholder("now"),
    })
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`case when ${rateLimit.lastRequest} <= ${sql.placeholder("windowStart")} then 1 else ${rateLimit.count} + 1 end`,
        lastRequest: sql`case when ${rateLimit.lastRequest} <= ${sql.placeholder("windowStart")} then ${sql.placeholder("now")} else ${rateLimit.lastRequest} end`,
      },
    })
    .returning({ count: rateLimit.count, lastRequest: rateLimit.lastRequest })
    .prepare("rate_limit_count_request"),
);

/** Keys longer than this are shortened (their start kept, the rest hashed): an index entry has a size limit. */
const MAX_KEY_LENGTH = 300;

/**
 * The stored form of a key, whatever string a caller built it from (a typed e-mail address, say):
 * NUL and unpaired surrogates, which PostgreSQL refuses, become U+FFFD, and a long key keeps its
 * first characters and a hash of the whole. Ordinary keys are stored as they are, so a prefix
 * still finds them (`clearSignInFailures`).
 */
export function rateLimitKey(key: string): string {
  const safe = `app:${key}`.replaceAll("\u0000", "\ufffd").replace(/\p{Cs}/gu, "\ufffd");
  if (safe.length <= MAX_KEY_LENGTH) return safe;
  return `${safe.slice(0, 200)}#${crypto.createHash("sha256").update(safe).digest("base64url")}`;
}
