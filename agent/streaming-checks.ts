// Streaming checks from the node's exit (decision 133): the agent fetches each service staff listed
// from the node itself, so the request leaves by the node's egress (the address buyers' traffic is
// masqueraded to), and reports whether the answer is the one that means "works from here".
// Bounded: one check at a time, each with a time limit and a body-size limit, no cookies or
// credentials kept (fetch keeps none), no redirect followed. A check never holds up the peers or
// the reports: its results wait for the next report.
import type { StreamingCheck, StreamingResult } from "./node-api.ts";

export const STREAMING_CHECK_LIMITS = {
  /** How long one fetch may take, headers and body. */
  timeoutMs: 10_000,
  /** How much of an answer's body is read to look for a text. */
  maxBodyBytes: 256 * 1024,
  /** How often every service is checked again. */
  intervalMs: 15 * 60_000,
} as const;

const USER_AGENT = "Mozilla/5.0 (compatible; NaijaLink exit check)";

export interface Answer {
  status: number;
  /** Where a redirect points. */
  location?: string | null;
  /** The body's first bytes as text; undefined when not read. */
  body?: string;
}

/** Whether an answer is the one that means "works from here", and if not, why. */
export function judgeAnswer(check: StreamingCheck, answer: Answer): { ok: boolean; reason?: string } {
  if (answer.status !== check.expectStatus) {
    const redirect =
      answer.status >= 300 && answer.status < 400 && answer.location
        ? ` (a redirect to ${answer.location.slice(0, 200)})`
        : "";
    return { ok: false, reason: `answered ${answer.status}${redirect}, not ${check.expectStatus}` };
  }
  const body = (answer.body ?? "").toLowerCase();
  if (check.bodyContains && !body.includes(check.bodyContains.toLowerCase()))
    return { ok: false, reason: `the answer lacks "${check.bodyContains}"` };
  if (check.bodyLacks && body.includes(check.bodyLacks.toLowerCase()))
    return { ok: false, reason: `the answer holds "${check.bodyLacks}"` };
  return { ok: true };
}

/** Reads at most `maxBytes` of a body, then lets the rest go. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes));
}

export interface CheckOptions {
  timeoutMs?: number;
  maxBodyBytes?: number;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Ends a check at once (the agent stopping). */
  signal?: AbortSignal;
}

/** Fetches one service and judges its answer; never throws. */
export async function runStreamingCheck(
  check: StreamingCheck,
  options: CheckOptions = {},
): Promise<StreamingResult> {
  const timeoutMs = options.timeoutMs ?? STREAMING_CHECK_LIMITS.timeoutMs;
  const maxBodyBytes = options.maxBodyBytes ?? STREAMING_CHECK_LIMITS.maxBodyBytes;
  const now = options.now ?? (() => new Date());
  const checkedAt = () => Math.floor(now().getTime() / 1000);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await (options.fetch ?? fetch)(check.url, {
      redirect: "manual",
      credentials: "omit",
      headers: { "user-agent": USER_AGENT, accept: "text/html,*/*" },
      signal,
    });
    const wantsBody =
      Boolean(check.bodyContains || check.bodyLacks) && response.status === check.expectStatus;
    const body = wantsBody ? await readBounded(response, maxBodyBytes) : undefined;
    if (!wantsBody) await response.body?.cancel().catch(() => undefined);
    const verdict = judgeAnswer(check, {
      status: response.status,
      location: response.headers.get("location"),
      body,
    });
    return { id: check.id, status: response.status, ...verdict, checkedAt: checkedAt() };
  } catch (error) {
    const reason = timeout.aborted
      ? `no answer within ${timeoutMs / 1000} s`
      : `no answer: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`;
    return { id: check.id, ok: false, reason: reason.slice(0, 300), checkedAt: checkedAt() };
  }
}

export interface StreamingChecker {
  /** The services the control plane listed (each report's answer); a changed list is checked at once. */
  configure(checks: readonly StreamingCheck[]): void;
  /** Checks every listed service, one after another, unless a round is running already. */
  runRound(): Promise<void>;
  /** Results not yet reported, and taking them out. */
  take(): StreamingResult[];
  /** Results a failed report did not deliver, kept for the next (unless a newer one came). */
  putBack(results: readonly StreamingResult[]): void;
  /** Resolves when no round is running. */
  settled(): Promise<void>;
}

export function createStreamingChecker(
  options: CheckOptions & {
    onResults?: () => void;
    log?: (message: string, fields: Record<string, unknown>) => void;
  } = {},
): StreamingChecker {
  let checks: StreamingCheck[] = [];
  let listed = "";
  const pending = new Map<string, StreamingResult>();
  let round: Promise<void> | undefined;
  /** The list changed during a round: another follows at once. */
  let again = false;

  async function runAll() {
    do {
      again = false;
      await runOnce();
    } while (again && !options.signal?.aborted);
  }

  async function runOnce() {
    for (const check of checks) {
      if (options.signal?.aborted) return;
      const result = await runStreamingCheck(check, options);
      // The list may have changed while it ran: a removed service's result is dropped.
      if (!checks.some((listedCheck) => listedCheck.id === check.id)) continue;
      pending.set(result.id, result);
      if (!result.ok) options.log?.("streaming check failed", { url: check.url, reason: result.reason });
    }
    if (pending.size) options.onResults?.();
  }

  const checker: StreamingChecker = {
    configure(next) {
      const key = JSON.stringify(next);
      if (key === listed) return;
      listed = key;
      checks = [...next];
      again = round !== undefined;
      for (const id of pending.keys()) if (!checks.some((check) => check.id === id)) pending.delete(id);
      if (checks.length) void checker.runRound();
    },
    runRound() {
      round ??= runAll().finally(() => (round = undefined));
      return round;
    },
    take() {
      const results = [...pending.values()];
      pending.clear();
      return results;
    },
    putBack(results) {
      for (const result of results) if (!pending.has(result.id)) pending.set(result.id, result);
    },
    settled: () => round ?? Promise.resolve(),
  };
  return checker;
}
