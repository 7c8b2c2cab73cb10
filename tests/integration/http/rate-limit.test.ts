import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
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

  it("counts each key against its own limit", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const now = 1_700_000_000_000;
    const options = { windowMs: 60_000 };
    const client = (at: number) =>
      consumeRateLimit(db, "verify:client:203.0.113.1", { ...options, limit: 3, now: at });
    const session = (at: number) =>
      consumeRateLimit(db, "verify:session:cs_1", { ...options, limit: 1, now: at });
    expect((await client(now)).allowed).toBe(true);
    expect((await session(now)).allowed).toBe(true);
    expect(await session(now + 1_000)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 59 });
    expect(await client(now + 1_000)).toMatchObject({ allowed: true, remaining: 1 });
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
