// Decision 081: each tick of a scheduled job runs in one app process, however many share the
// database (tests/integration/multi-process.test.ts runs the real processes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { claimJobTick, startRepeatingJob } from "#server/domain/ops/jobs.ts";
import { createLogger } from "#server/logger.ts";
import { createTestDatabase, databaseKinds } from "../support/database.ts";

const MINUTE = 60_000;

describe.each(databaseKinds)("scheduled job ticks on %s", (kind) => {
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
});
