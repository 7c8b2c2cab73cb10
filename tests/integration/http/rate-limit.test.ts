import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { consumeRateLimit, consumeRateLimits } from "#server/domain/rate-limit.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";

describe.each(databaseKinds)("the shared rate limiter on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it("allows the limit, refuses the next, and opens again after the window", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const now = 1_700_000_000_000;
    const options = { limit: 3, windowMs: 60_000 };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await consumeRateLimit(db, "contact:1.2.3.4", { ...options, now })).allowed).toBe(true);
    }
    const refused = await consumeRateLimit(db, "contact:1.2.3.4", { ...options, now: now + 1_000 });
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(59);
    expect((await consumeRateLimit(db, "contact:5.6.7.8", { ...options, now })).allowed).toBe(true);
    expect((await consumeRateLimit(db, "contact:1.2.3.4", { ...options, now: now + 61_000 })).allowed).toBe(
      true,
    );
  });

  it("counts several keys of one window at once, each against its own limit, in the order asked", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const now = 1_700_000_000_000;
    const counters = [
      { key: "verify:client:203.0.113.1", limit: 3 },
      { key: "verify:session:cs_1", limit: 1 },
    ];
    const first = await consumeRateLimits(db, counters, { windowMs: 60_000, now });
    expect(first.map((result) => result.allowed)).toEqual([true, true]);
    const second = await consumeRateLimits(db, counters, { windowMs: 60_000, now: now + 1_000 });
    expect(second.map((result) => result.allowed)).toEqual([true, false]);
    expect(second[1]!.retryAfterSeconds).toBe(59);
    const alone = await consumeRateLimit(db, "verify:client:203.0.113.1", {
      limit: 3,
      windowMs: 60_000,
      now,
    });
    expect(alone).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("never lets concurrent requests share the last slot", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => consumeRateLimit(db, "burst", { limit: 5, windowMs: 60_000, now })),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(5);
  });
});
