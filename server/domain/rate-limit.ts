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
      counters.map(({ key }) => ({ id: crypto.randomUUID(), key: `app:${key}`, count: 1, lastRequest: now })),
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
    const row = byKey.get(`app:${key}`)!;
    return {
      allowed: row.count <= limit,
      remaining: Math.max(0, limit - row.count),
      retryAfterSeconds: Math.max(1, Math.ceil((row.lastRequest + options.windowMs - now) / 1000)),
    };
  });
}
