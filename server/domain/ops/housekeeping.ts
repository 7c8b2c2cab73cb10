import { and, eq, lt, lte } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import {
  checkoutSessions,
  contactMessages,
  customerSession,
  customerVerification,
  outboxMessages,
  rateLimit,
} from "#server/db/schema/index.ts";
import { purgeDnsChecks } from "#server/domain/vpn/dns-checks.ts";
import { DAY_MS } from "#server/domain/time.ts";

export const RETENTION = {
  /** A hosted checkout nobody paid is dead after a day (Stripe's own sessions expire then). */
  openCheckoutMs: DAY_MS,
  /** Expired checkouts are kept a while for support questions, then removed. */
  expiredCheckoutMs: 30 * DAY_MS,
  /** Longer than any rate-limit window. */
  rateLimitMs: DAY_MS,
  /** Sent e-mails carry sealed configs: keep them only as long as a delivery question may come. */
  sentEmailMs: 30 * DAY_MS,
  /** A closed contact message (personal data) goes half a year after it was closed (decision 079). */
  closedMessageMs: 180 * DAY_MS,
};

export interface HousekeepingResult {
  expiredCheckouts: number;
  removedCheckouts: number;
  removedRateLimits: number;
  removedEmails: number;
  /** Customers' sign-in links and sessions past their expiry. */
  removedCustomerSignIns: number;
  removedMessages: number;
  /** /check's DNS test reports past their 10 minutes. */
  removedDnsChecks: number;
}

/** Expires unpaid checkouts and removes what is kept no longer (see RETENTION). Idempotent. */
export async function purgeStale(db: Database, now = new Date()): Promise<HousekeepingResult> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const expired = await db
    .update(checkoutSessions)
    .set({ status: "expired" })
    .where(
      and(
        eq(checkoutSessions.status, "open"),
        lte(checkoutSessions.createdAt, before(RETENTION.openCheckoutMs)),
      ),
    )
    .returning({ id: checkoutSessions.id });
  const removedCheckouts = await db
    .delete(checkoutSessions)
    .where(
      and(
        eq(checkoutSessions.status, "expired"),
        lte(checkoutSessions.createdAt, before(RETENTION.expiredCheckoutMs)),
      ),
    )
    .returning({ id: checkoutSessions.id });
  const removedRateLimits = await db
    .delete(rateLimit)
    .where(lt(rateLimit.lastRequest, now.getTime() - RETENTION.rateLimitMs))
    .returning({ id: rateLimit.id });
  const removedEmails = await db
    .delete(outboxMessages)
    .where(and(eq(outboxMessages.status, "sent"), lte(outboxMessages.sentAt, before(RETENTION.sentEmailMs))))
    .returning({ id: outboxMessages.id });
  const removedLinks = await db
    .delete(customerVerification)
    .where(lte(customerVerification.expiresAt, now))
    .returning({ id: customerVerification.id });
  const removedSessions = await db
    .delete(customerSession)
    .where(lte(customerSession.expiresAt, now))
    .returning({ id: customerSession.id });
  const removedMessages = await db
    .delete(contactMessages)
    .where(
      and(
        eq(contactMessages.status, "closed"),
        lte(contactMessages.statusChangedAt, before(RETENTION.closedMessageMs)),
      ),
    )
    .returning({ id: contactMessages.id });
  return {
    expiredCheckouts: expired.length,
    removedCheckouts: removedCheckouts.length,
    removedRateLimits: removedRateLimits.length,
    removedEmails: removedEmails.length,
    removedCustomerSignIns: removedLinks.length + removedSessions.length,
    removedMessages: removedMessages.length,
    removedDnsChecks: await purgeDnsChecks(db, now),
  };
}
