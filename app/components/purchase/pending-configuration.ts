import { useEffect, useRef, useState } from "react";
import {
  configsOf,
  RATE_LIMITED_ERROR,
  requestVerification,
  type VerificationResponse,
} from "./verification.ts";

// Configuration Pending updates itself: the page asks verify-payment again, slowly
// and for a bounded time, and stops as soon as the answer is no longer pending. Each ask is the
// same call with the same authorisation as the page's first, and it also retries the first device.

export const PENDING_POLL = {
  firstDelayMs: 3_000,
  maxDelayMs: 30_000,
  /** After this the page stops asking and says the config will come by e-mail. */
  giveUpAfterMs: 30 * 60_000,
};

/**
 * The wait before ask number `attempt` (0-based): 3 s twice, then doubling every second ask up to
 * 30 s; null once `elapsedMs` since the page went pending has used the budget.
 */
export function pendingPollDelay(attempt: number, elapsedMs: number): number | null {
  if (elapsedMs >= PENDING_POLL.giveUpAfterMs) return null;
  const delay = PENDING_POLL.firstDelayMs * 2 ** Math.floor(attempt / 2);
  return Math.min(delay, PENDING_POLL.maxDelayMs, PENDING_POLL.giveUpAfterMs - elapsedMs);
}

/** Whether an answer ends the wait: a config came, or a refusal other than "asked too often". */
export function endsPending(answer: VerificationResponse): boolean {
  if (answer.success) return configsOf(answer).length > 0;
  return answer.error !== RATE_LIMITED_ERROR;
}

export interface PendingPollDeps {
  ask: () => Promise<VerificationResponse>;
  /** Every answer, including the one that ends the wait. */
  onAnswer: (answer: VerificationResponse) => void;
  onGiveUp: () => void;
  isHidden: () => boolean;
  now: () => number;
  timers: { set: (run: () => void, ms: number) => unknown; clear: (handle: unknown) => void };
}

/**
 * Asks on `pendingPollDelay`'s schedule until an answer `endsPending` or the time is used up. A
 * hidden tab does not ask; `askNow` (the tab shown again, the network back) asks at once.
 */
export function startPendingPoll(deps: PendingPollDeps): { askNow: () => void; stop: () => void } {
  const startedAt = deps.now();
  let attempt = 0;
  let timer: unknown;
  let asking = false;
  let stopped = false;

  const stop = () => {
    stopped = true;
    if (timer !== undefined) deps.timers.clear(timer);
    timer = undefined;
  };
  const schedule = () => {
    if (timer !== undefined) deps.timers.clear(timer);
    timer = undefined;
    if (stopped) return;
    const delay = pendingPollDelay(attempt, deps.now() - startedAt);
    if (delay === null) {
      stop();
      deps.onGiveUp();
      return;
    }
    attempt += 1;
    timer = deps.timers.set(() => {
      timer = undefined;
      void ask();
    }, delay);
  };
  const ask = async () => {
    if (stopped || asking || deps.isHidden()) return;
    asking = true;
    let answer: VerificationResponse | undefined;
    try {
      answer = await deps.ask();
    } catch {
      // The network failed: the next ask tries again.
    } finally {
      asking = false;
    }
    if (stopped) return;
    if (answer) {
      if (endsPending(answer)) stop();
      deps.onAnswer(answer);
    }
    schedule();
  };
  schedule();
  return {
    askNow: () => {
      if (stopped || asking) return;
      if (timer !== undefined) deps.timers.clear(timer);
      timer = undefined;
      void ask();
    },
    stop,
  };
}

/**
 * While `pending`, polls verify-payment about `sessionId` (`startPendingPoll`) and hands each
 * answer to `onAnswer`. Answers `true` once it has given up.
 */
export function usePendingConfigurationPoll(
  sessionId: string | null,
  pending: boolean,
  onAnswer: (result: VerificationResponse) => void,
): boolean {
  const [gaveUp, setGaveUp] = useState(false);
  const latestOnAnswer = useRef(onAnswer);
  useEffect(() => {
    latestOnAnswer.current = onAnswer;
  });

  useEffect(() => {
    if (!pending || !sessionId) return;
    const poll = startPendingPoll({
      ask: () => requestVerification(sessionId),
      onAnswer: (answer) => latestOnAnswer.current(answer),
      onGiveUp: () => setGaveUp(true),
      isHidden: () => document.visibilityState === "hidden",
      now: () => Date.now(),
      timers: {
        set: (run, ms) => setTimeout(run, ms),
        clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
    });
    const whenShown = () => {
      if (document.visibilityState === "visible") poll.askNow();
    };
    document.addEventListener("visibilitychange", whenShown);
    window.addEventListener("online", whenShown);
    return () => {
      poll.stop();
      document.removeEventListener("visibilitychange", whenShown);
      window.removeEventListener("online", whenShown);
    };
  }, [sessionId, pending]);

  return gaveUp;
}
