import { useEffect, useRef, useState } from "react";
import { requestVerification, type VerificationResponse } from "./verification.ts";

// Configuration Pending updates itself (decision 111): the page asks verify-payment again, slowly
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

/**
 * While `pending`, asks verify-payment about `sessionId` on `pendingPollDelay`'s schedule (at once
 * when the tab becomes visible again or the network comes back; not while the tab is hidden) and
 * hands each answer to `onAnswer`. Answers `true` once it has given up.
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
    const startedAt = Date.now();
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let asking = false;
    let stopped = false;

    const schedule = () => {
      clearTimeout(timer);
      if (stopped) return;
      const delay = pendingPollDelay(attempt, Date.now() - startedAt);
      if (delay === null) {
        stopped = true;
        setGaveUp(true);
        return;
      }
      attempt += 1;
      timer = setTimeout(() => void ask(), delay);
    };
    const ask = async () => {
      // A hidden tab waits: it asks again when it is shown (`whenShown`).
      if (stopped || asking || document.visibilityState === "hidden") return;
      asking = true;
      try {
        const result = await requestVerification(sessionId);
        if (!stopped) latestOnAnswer.current(result);
      } catch {
        // The network failed: the next ask tries again.
      } finally {
        asking = false;
      }
      schedule();
    };
    const whenShown = () => {
      if (document.visibilityState !== "visible" || stopped) return;
      clearTimeout(timer);
      void ask();
    };
    document.addEventListener("visibilitychange", whenShown);
    window.addEventListener("online", whenShown);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", whenShown);
      window.removeEventListener("online", whenShown);
    };
  }, [sessionId, pending]);

  return gaveUp;
}
