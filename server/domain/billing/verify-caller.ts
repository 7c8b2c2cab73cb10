import crypto from "node:crypto";
import type { CheckoutSession, Subscription } from "#server/db/schema/index.ts";
import { hashToken } from "#server/secrets.ts";

/**
 * Per client only. There is no per-session limit (issue 25): anyone holding a session id could
 * spend it and block the buyer's success page; what it guarded (asking Stripe about one session)
 * has its own throttle, `stripeCheck`, which decides whether Stripe is asked, never whether the
 * caller is answered from the database.
 */
export const VERIFY_LIMITS = {
  /** Calls per minute from one client. */
  windowMs: 60_000,
  perClient: 60,
  /** How often Stripe is asked about one unpaid session. */
  stripeCheck: { limit: 1, windowMs: 5_000 },
};

/**
 * Who is asking: the client's address, the buyer cookie's token if the browser sent one, and the
 * address of the customer signed in at /account, if any.
 */
export interface VerifyCaller {
  clientIp: string;
  buyerToken: string | null;
  customerEmail?: string | null;
}

/**
 * Whether the caller may claim another device slot on this session: it is the browser that paid
 * (its buyer cookie hashes to the one recorded at checkout), or the customer signed in with the
 * address the subscription was bought with. Sessions from before buyer cookies
 * have no hash and pass only a signed-in owner.
 */
export function mayAddDevice(
  session: CheckoutSession,
  subscription: Subscription | null,
  caller: VerifyCaller,
): boolean {
  const owner = (subscription?.customerEmail ?? session.customerEmail)?.toLowerCase();
  if (caller.customerEmail && owner === caller.customerEmail.toLowerCase()) return true;
  if (!caller.buyerToken || !session.buyerTokenHash) return false;
  const presented = Buffer.from(hashToken(caller.buyerToken));
  const recorded = Buffer.from(session.buyerTokenHash);
  return presented.length === recorded.length && crypto.timingSafeEqual(presented, recorded);
}
