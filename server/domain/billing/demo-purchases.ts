import { and, asc, eq, notExists, sql, type SQL } from "drizzle-orm";
import { formatLongDate } from "#core/format.ts";
import { usesTestCheckout, type Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, subscriptions, type CheckoutSession } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import { usableSubscription } from "#server/domain/vpn/usable.ts";

// Demo money never becomes live money (decision 122). A subscription bought on the built-in test
// checkout has no real payment behind it. While the store sells through that checkout it behaves
// like any other; once the store takes real money (live, or Stripe configured) it keeps the period
// it was sold with and then ends: it never renews, resumes, changes plan, is extended or refunded.

export type CheckoutModeConfig = Pick<Config, "NAIJALINK_MODE" | "STRIPE_SECRET_KEY">;

/** Bought with the demo's test card, on a store that now takes real money. */
export function isDemoPurchase(provider: CheckoutSession["provider"], config: CheckoutModeConfig): boolean {
  return provider === "test" && !usesTestCheckout(config);
}

const ends = (expiresAt: Date, now: Date) =>
  `${expiresAt > now ? "ends" : "ended"} on ${formatLongDate(expiresAt)}`;

/** The customer's answer: why, and what to do instead. */
export const demoPurchaseRefused = (expiresAt: Date, now: Date) =>
  new DomainError(
    "conflict",
    "Demo purchase",
    `This plan was bought with the demo's test card before the store took real payments, so it cannot renew, resume or change plan. It ${ends(expiresAt, now)}; to stay connected after that, choose a plan on the pricing page.`,
  );

/** Why staff cannot move a demo purchase forward, and what they can do with it. */
export const demoPurchaseStaffReason = (expiresAt: Date, now: Date) =>
  `This is a demo purchase, paid with the demo's test card before the store went live: it cannot renew, resume, change plan, be extended, reactivated or refunded (no real money was paid). It ${ends(expiresAt, now)}${expiresAt > now ? "; Cancel now ends it sooner" : ""}.`;

/** Throws the customer's 409 for a demo purchase; returns for any other subscription. */
export function refuseDemoPurchase(
  config: CheckoutModeConfig,
  provider: CheckoutSession["provider"],
  subscription: { expiresAt: Date },
  now: Date,
): void {
  if (isDemoPurchase(provider, config)) throw demoPurchaseRefused(subscription.expiresAt, now);
}

/** "Not a demo purchase" as a condition on `subscriptions`; none is one while the store sells through the test checkout. */
export function notDemoPurchase(db: Executor, config: CheckoutModeConfig): SQL | undefined {
  if (usesTestCheckout(config)) return undefined;
  return notExists(
    db
      .select({ one: sql`1` })
      .from(checkoutSessions)
      .where(
        and(eq(checkoutSessions.id, subscriptions.checkoutSessionId), eq(checkoutSessions.provider, "test")),
      ),
  );
}

/** The demo purchases still usable, the one ending last last: what `npm run doctor` counts. */
export async function runningDemoPurchases(
  db: Executor,
  config: CheckoutModeConfig,
  now: Date,
): Promise<{ id: string; expiresAt: Date }[]> {
  if (usesTestCheckout(config)) return [];
  return db
    .select({ id: subscriptions.id, expiresAt: subscriptions.expiresAt })
    .from(subscriptions)
    .innerJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
    .where(and(eq(checkoutSessions.provider, "test"), usableSubscription(now)))
    .orderBy(asc(subscriptions.expiresAt));
}
