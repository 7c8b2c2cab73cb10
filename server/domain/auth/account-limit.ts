// Our own limits on the password endpoints, on top of better-auth's per-address one (decision 065).
import { eq, like } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import * as authSchema from "#server/db/schema/auth.ts";
import { consumeRateLimit, rateLimitKey, type RateLimitResult } from "#server/domain/rate-limit.ts";

/**
 * Failed sign-ins per account AND client address: a stranger guessing from one address locks
 * only that address out of the account, never its owner elsewhere; a botnet still gets only a
 * handful of guesses per address and window.
 */
export const ACCOUNT_LIMIT = { limit: 5, windowMs: 5 * 60_000 };

function normalised(email: string) {
  return email.trim().toLowerCase();
}

/** Clearing deletes by the key as stored (`rateLimitKey`). */
function signInKey(email: string, clientIp: string) {
  return `sign-in:${normalised(email)}:${clientIp}`;
}

export function consumeSignInAttempt(
  db: Database,
  email: string,
  clientIp: string,
): Promise<RateLimitResult> {
  return consumeRateLimit(db, signInKey(email, clientIp), ACCOUNT_LIMIT);
}

/**
 * Sign-ups per address, whatever the client: each one may e-mail the address (a confirmation or
 * an "already has an account" notice), so this bounds the mail a stranger can cause it.
 */
export function consumeSignUpAttempt(db: Database, email: string): Promise<RateLimitResult> {
  return consumeRateLimit(db, `sign-up:${normalised(email)}`, ACCOUNT_LIMIT);
}

/** A completed sign-in clears its own counter; a new password (no client given) clears them all. */
export async function clearSignInFailures(db: Database, email: string, clientIp?: string) {
  if (clientIp !== undefined) {
    await db
      .delete(authSchema.rateLimit)
      .where(eq(authSchema.rateLimit.key, rateLimitKey(signInKey(email, clientIp))));
    return;
  }
  const prefix = rateLimitKey(signInKey(email, "")).replace(/[\\%_]/g, (char) => `\\${char}`);
  await db.delete(authSchema.rateLimit).where(like(authSchema.rateLimit.key, `${prefix}%`));
}
