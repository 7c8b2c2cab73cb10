// Decision 081: what the app processes sharing one database agree on. Each tick of a scheduled
// job runs in one of them, and all seal with one key (tests/integration/ops/multi-process.test.ts
// runs real processes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { claimJobTick, startRepeatingJob } from "#server/domain/ops/jobs.ts";
import { createLogger } from "#server/logger.ts";
import { checkSealingKey, createSealer } from "#server/secrets.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";

const MINUTE = 60_000;

describe.each(databaseKinds)("app processes sharing one database (%s)", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("gives each tick to one caller: concurrent claims, a repeat, a lagging clock", async () => {
    const tickStart = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
    const at = (ms: number) => new Date(tickStart.getTime() + ms);
    const together = await Promise.all(
      Array.from({ length: 10 }, () => claimJobTick(handle.db, "expiry", MINUTE, at(1_000))),
    );
    expect(together.filter(Boolean)).toHaveLength(1);
    expect(await claimJobTick(handle.db, "expiry", MINUTE, at(MINUTE - 1))).toBe(false);
    expect(await claimJobTick(handle.db, "reminders", MINUTE, at(MINUTE - 1))).toBe(true);
    expect(await claimJobTick(handle.db, "expiry", MINUTE, at(MINUTE))).toBe(true);
    // A process whose clock is a tick behind finds that tick already run.
    expect(await claimJobTick(handle.db, "expiry", MINUTE, at(MINUTE - 1))).toBe(false);
  });

  it("runs a shared job once when two processes start it in the same tick", async () => {
    let runs = 0;
    const logger = createLogger({ level: "silent" });
    const deps = { logger, intervalMs: 1e12, shared: { db: handle.db, job: "housekeeping" } };
    const job = () => startRepeatingJob("housekeeping", async () => ({ removed: ++runs }), deps);
    const started = [job(), job()];
    await Promise.all(started.map((running) => running.stop()));
    expect(runs).toBe(1);
  });

  it("refuses to start a process whose at-rest key cannot open what the first one sealed", async () => {
    const first = createSealer(Buffer.alloc(32, 1).toString("base64"));
    await checkSealingKey(handle.db, first);
    await checkSealingKey(handle.db, createSealer(Buffer.alloc(32, 1).toString("base64")));
    await expect(
      checkSealingKey(handle.db, createSealer(Buffer.alloc(32, 2).toString("base64"))),
    ).rejects.toThrow(/CONFIG_ENCRYPTION_KEY: not the key this database's data was sealed with/);
  });
});
