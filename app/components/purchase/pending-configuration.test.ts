import { describe, expect, it } from "vitest";
import { PENDING_POLL, pendingPollDelay, startPendingPoll } from "./pending-configuration.ts";
import type { VerificationResponse } from "./verification.ts";

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

/** A clock and timers the test moves by hand: `fire()` runs the one pending timer at its time. */
function manualTime() {
  let now = 0;
  let pending: { run: () => void; at: number; handle: number } | undefined;
  let handles = 0;
  return {
    now: () => now,
    timers: {
      set: (run: () => void, ms: number) => {
        if (pending) throw new Error("the poll keeps one timer at a time");
        pending = { run, at: now + ms, handle: ++handles };
        return pending.handle;
      },
      clear: (handle: unknown) => {
        if (pending?.handle === handle) pending = undefined;
      },
    },
    /** The wait of the pending timer, or null when none is set. */
    waiting: () => (pending ? pending.at - now : null),
    async fire() {
      const timer = pending!;
      pending = undefined;
      now = timer.at;
      timer.run();
      // Let the ask's promise settle.
      for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    },
  };
}

const PENDING_ANSWER: VerificationResponse = {
  success: true,
  subscription: {
    planType: "pro_monthly",
    deviceLimit: 3,
    expiresAt: "2030-01-01T00:00:00Z",
    activeDevices: 0,
  },
  downloadUrl: null,
  configSlot: null,
  devices: [],
};
const READY_ANSWER: VerificationResponse = {
  ...PENDING_ANSWER,
  downloadUrl: "https://naijalink.example/api/configs/token",
  configSlot: 1,
  devices: [{ slot: 1, downloadUrl: "https://naijalink.example/api/configs/token" }],
};

function pollWith(answers: Array<VerificationResponse | Error>, hidden = () => false) {
  const time = manualTime();
  const seen: VerificationResponse[] = [];
  let asks = 0;
  let gaveUp = false;
  const poll = startPendingPoll({
    ask: async () => {
      const answer = answers[Math.min(asks++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    onAnswer: (answer) => seen.push(answer),
    onGiveUp: () => (gaveUp = true),
    isHidden: hidden,
    now: time.now,
    timers: time.timers,
  });
  return { time, poll, seen, asks: () => asks, gaveUp: () => gaveUp };
}

describe("the Configuration Pending poll", () => {
  it("asks until an answer carries the config, then stops asking", async () => {
    const { time, seen, asks } = pollWith([PENDING_ANSWER, PENDING_ANSWER, READY_ANSWER]);
    expect(time.waiting()).toBe(3_000);
    await time.fire();
    await time.fire();
    expect(time.waiting()).toBe(6_000);
    await time.fire();
    expect(seen).toEqual([PENDING_ANSWER, PENDING_ANSWER, READY_ANSWER]);
    expect(asks()).toBe(3);
    expect(time.waiting()).toBeNull();
  });

  it("keeps asking through network failures and rate limiting; stops at any other refusal", async () => {
    const refused: VerificationResponse = { success: false, error: "Subscription ended", message: "…" };
    const limited: VerificationResponse = { success: false, error: "Too many requests", message: "…" };
    const { time, seen } = pollWith([new Error("offline"), limited, refused]);
    await time.fire();
    await time.fire();
    expect(time.waiting()).not.toBeNull();
    await time.fire();
    expect(seen).toEqual([limited, refused]);
    expect(time.waiting()).toBeNull();
  });

  it("gives up when its time is used, having asked a bounded number of times", async () => {
    const { time, asks, gaveUp } = pollWith([PENDING_ANSWER]);
    while (time.waiting() !== null) await time.fire();
    expect(gaveUp()).toBe(true);
    expect(time.now()).toBe(PENDING_POLL.giveUpAfterMs);
    expect(asks()).toBeLessThan(70);
  });

  it("does not ask while the tab is hidden, and asks at once when it is shown again", async () => {
    let hidden = true;
    const { time, poll, asks, seen } = pollWith([READY_ANSWER], () => hidden);
    await time.fire();
    expect(asks()).toBe(0);
    hidden = false;
    poll.askNow();
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    expect(asks()).toBe(1);
    expect(seen).toEqual([READY_ANSWER]);
    expect(time.waiting()).toBeNull();
  });

  it("asks nothing more once stopped (the page left the pending view)", async () => {
    const { time, poll, asks } = pollWith([PENDING_ANSWER]);
    poll.stop();
    expect(time.waiting()).toBeNull();
    poll.askNow();
    expect(asks()).toBe(0);
  });
});
