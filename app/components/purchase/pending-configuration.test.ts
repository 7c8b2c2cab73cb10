import { describe, expect, it } from "vitest";
import { PENDING_POLL, pendingPollDelay } from "./pending-configuration.ts";

describe("how often Configuration Pending asks again", () => {
  it("asks after 3 s at first, then ever more slowly, never less often than every 30 s", () => {
    const delays = Array.from({ length: 12 }, (_, attempt) => pendingPollDelay(attempt, 0));
    expect(delays.slice(0, 6)).toEqual([3_000, 3_000, 6_000, 6_000, 12_000, 12_000]);
    expect(delays.slice(8)).toEqual([30_000, 30_000, 30_000, 30_000]);
    for (let index = 1; index < delays.length; index++)
      expect(delays[index]!).toBeGreaterThanOrEqual(delays[index - 1]!);
  });

  it("stops once its time is used up, and never waits past it", () => {
    expect(pendingPollDelay(40, PENDING_POLL.giveUpAfterMs)).toBeNull();
    expect(pendingPollDelay(3, PENDING_POLL.giveUpAfterMs + 1)).toBeNull();
    expect(pendingPollDelay(40, PENDING_POLL.giveUpAfterMs - 1_000)).toBe(1_000);
  });

  it("asks a bounded number of times however long the page stays open", () => {
    let elapsed = 0;
    let asks = 0;
    for (let delay = pendingPollDelay(0, 0); delay !== null; delay = pendingPollDelay(asks, elapsed)) {
      elapsed += delay;
      asks += 1;
    }
    expect(elapsed).toBe(PENDING_POLL.giveUpAfterMs);
    expect(asks).toBeLessThan(70);
  });
});
