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
  const now = options.now ?? Date.now();
  const windowStart = now - options.windowMs;
  const fullKey = `app:${key}`;
  const [row] = await executor
    .insert(rateLimit)
    .values({ id: crypto.randomUUID(), key: fullKey, count: 1, lastRequest: now })
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`case when ${rateLimit.lastRequest} <= ${windowStart} then 1 else ${rateLimit.count} + 1 end`,
        lastRequest: sql`case when ${rateLimit.lastRequest} <= ${windowStart} then ${now} else ${rateLimit.lastRequest} end`,
      },
    })
    .returning({ count: rateLimit.count, lastRequest: rateLimit.lastRequest });
  const count = row!.count;
  return {
    allowed: count <= options.limit,
    remaining: Math.max(0, options.limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil((row!.lastRequest + options.windowMs - now) / 1000)),
  };
}
