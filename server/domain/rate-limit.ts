import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
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
  executor: Executor,
  key: string,
  options: { limit: number; windowMs: number; now?: number },
): Promise<RateLimitResult> {
  const [result] = await consumeRateLimits(executor, [{ key, limit: options.limit }], options);
  return result!;
}

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

/** Several counters of one window length, counted in one statement; results in the input order. */
export async function consumeRateLimits(
  executor: Executor,
  counters: Array<{ key: string; limit: number }>,
  options: { windowMs: number; now?: number },
): Promise<RateLimitResult[]> {
  const now = options.now ?? Date.now();
  const windowStart = now - options.windowMs;
  const rows = await executor
    .insert(rateLimit)
    .values(
      // One row per stored key: two keys that store alike count as one (an upsert may touch a row once).
      [...new Set(counters.map(({ key }) => rateLimitKey(key)))].map((key) => ({
        id: crypto.randomUUID(),
        key,
        count: 1,
        lastRequest: now,
      })),
    )
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`case when ${rateLimit.lastRequest} <= ${windowStart} then 1 else ${rateLimit.count} + 1 end`,
        lastRequest: sql`case when ${rateLimit.lastRequest} <= ${windowStart} then ${now} else ${rateLimit.lastRequest} end`,
      },
    })
    .returning({ key: rateLimit.key, count: rateLimit.count, lastRequest: rateLimit.lastRequest });
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return counters.map(({ key, limit }) => {
    const row = byKey.get(rateLimitKey(key))!;
    return {
      allowed: row.count <= limit,
      remaining: Math.max(0, limit - row.count),
      retryAfterSeconds: Math.max(1, Math.ceil((row.lastRequest + options.windowMs - now) / 1000)),
    };
  });
}
