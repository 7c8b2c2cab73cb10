import { afterEach, describe, expect, it, vi } from "vitest";
import { startRepeatingJob } from "./jobs.ts";

function recordingLogger() {
  const lines: Array<{ level: string; fields: unknown; message: string }> = [];
  const log = (level: string) => (fields: unknown, message: string) => lines.push({ level, fields, message });
  return { lines, logger: { info: log("info"), error: log("error") } as never };
}

describe("a repeating job", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs at once and on every tick, never twice at the same time, logging only runs that did something", async () => {
    vi.useFakeTimers();
    const { lines, logger } = recordingLogger();
    let runs = 0;
    let finish: (() => void) | undefined;
    const job = startRepeatingJob(
      "cleaned",
      async () => {
        runs += 1;
        if (runs === 2) await new Promise<void>((resolve) => (finish = resolve));
        return { removed: runs === 1 ? 0 : 2 };
      },
      { logger, intervalMs: 1_000 },
    );
    await vi.advanceTimersByTimeAsync(1_000); // second run starts and hangs
    await vi.advanceTimersByTimeAsync(3_000); // ticks while it runs start nothing
    expect(runs).toBe(2);
    finish!();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(3);
    await job.stop();
    expect(lines.filter((line) => line.message === "cleaned")).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(3);
  });

  it("logs a failed run and tries again at the next tick", async () => {
    vi.useFakeTimers();
    const { lines, logger } = recordingLogger();
    let runs = 0;
    const job = startRepeatingJob(
      "purge",
      async () => {
        runs += 1;
        if (runs === 1) throw new Error("database away");
        return { removed: 1 };
      },
      { logger, intervalMs: 1_000 },
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await job.stop();
    expect(lines.map((line) => `${line.level} ${line.message}`)).toEqual([
      "error purge failed",
      "info purge",
    ]);
  });
});
