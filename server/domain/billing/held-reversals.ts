import { and, asc, eq, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { chargeReversals, subscriptions, type Subscription } from "#server/db/schema/index.ts";
import { queueRefundedEmail, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import type { BillingServices } from "./fulfil.ts";
import { customerNotice, STATUS_AFTER_REVERSAL } from "./end-subscription.ts";
import { lockPayer } from "./reversals.ts";
import { recordReversalMoney } from "./ledger.ts";

// A refund or dispute Stripe delivered before the payment it reverses waits in charge_reversals
// (reversals.ts); fulfilment applies it here when the payment lands.

/**
 * Fulfilment's check of a subscription it has just recorded: a refund or dispute held for its
 * payment ends it at once (a dispute outweighs a refund). Answers the subscription as it now is.
 */
export async function applyHeldReversals(
  tx: Transaction,
  services: Pick<BillingServices, "logger"> & CustomerEmailDeps,
  subscription: Subscription,
  paymentIntentId: string | null,
  now: Date,
): Promise<Subscription> {
  const matches: SQL[] = [];
  if (paymentIntentId) matches.push(eq(chargeReversals.paymentIntentId, paymentIntentId));
  if (subscription.stripeCustomerId)
    matches.push(eq(chargeReversals.customerId, subscription.stripeCustomerId));
  if (matches.length === 0) return subscription;
  await lockPayer(tx, subscription.stripeCustomerId ?? paymentIntentId);
  const held = await tx
    .select()
    .from(chargeReversals)
    .where(and(isNull(chargeReversals.appliedAt), or(...matches)))
    .orderBy(asc(chargeReversals.receivedAt));
  if (held.length === 0) return subscription;
  const kind = held.some((reversal) => reversal.kind === "dispute") ? "dispute" : "refund";
  const [ended] = await tx
    .update(subscriptions)
    .set({ status: STATUS_AFTER_REVERSAL[kind], expiresAt: now, updatedAt: now })
    .where(eq(subscriptions.id, subscription.id))
    .returning();
  await tx
    .update(chargeReversals)
    .set({ appliedAt: now, subscriptionId: subscription.id })
    .where(
      inArray(
        chargeReversals.id,
        held.map((reversal) => reversal.id),
      ),
    );
  for (const reversal of held) await recordReversalMoney(tx, reversal, subscription, "stripe", now);
  const told = held.find((reversal) => reversal.kind === kind)!;
  await queueRefundedEmail(tx, services, ended!, customerNotice(subscription.id, told, now));
  services.logger.warn(
    { subscriptionId: subscription.id, reversals: held.map((reversal) => reversal.id) },
    `payment recorded after its ${kind}: subscription ${STATUS_AFTER_REVERSAL[kind]}, no config issued`,
  );
  return ended!;
}
