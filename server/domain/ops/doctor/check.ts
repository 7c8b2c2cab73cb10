// `npm run doctor` (issue 23): each check is a small function answering one line,
// ✓ or ✗ with the fix. A ✗ that `blocksSelling` makes the command exit non-zero. No check's
// line ever carries a secret: settings are named, never quoted.

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do about a ✗. */
  fix?: string;
  /** No sale can complete (or no buyer's config can work) until it is fixed. */
  blocksSelling?: boolean;
}

export const pass = (name: string, detail: string): DoctorCheck => ({ name, ok: true, detail });

export const fail = (name: string, detail: string, fix: string, blocksSelling = false): DoctorCheck => ({
  name,
  ok: false,
  detail,
  fix,
  blocksSelling,
});

export function formatCheck(check: DoctorCheck): string {
  return check.ok
    ? `✓ ${check.name}: ${check.detail}`
    : `✗ ${check.name}: ${check.detail}${check.fix ? ` — fix: ${check.fix}` : ""}`;
}

/** The closing line and the exit status: 1 when something blocks selling. */
export function verdict(checks: DoctorCheck[]): { line: string; exitCode: number } {
  const failed = checks.filter((check) => !check.ok);
  const blocking = failed.filter((check) => check.blocksSelling);
  if (blocking.length)
    return {
      line: `Selling is blocked: ${blocking.length} of ${failed.length} problem(s) above stop sales.`,
      exitCode: 1,
    };
  return {
    line: failed.length
      ? `Nothing blocks selling; ${failed.length} problem(s) above to fix.`
      : "All checks passed: nothing blocks selling.",
    exitCode: 0,
  };
}

/** How long ago, in the largest whole unit. */
export function ago(then: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} days ago`;
}
