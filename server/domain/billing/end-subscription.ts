import { eq } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import {
  chargeReversals,
  subscriptions,
  type LedgerEntry,
  type ReversalKind,
  type Subscription,
} from "#server/db/schema/index.ts";
import {
  queueCancelledEmail,
  queuePeriodEmail,
  queueRefundedEmail,
  type CustomerEmailDeps,
} from "#server/domain/mail/customer-emails.ts";
import { revokeSubscriptionDevices } from "#server/domain/vpn/devices.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import { orderNumberOf, recordReversalMoney } from "./ledger.ts";
import type { Reversal } from "./reversals.ts";

// The one place a subscription ends: its period ran out (expiry), staff or Stripe cancelled it at
// once, or a refund or dispute took its payment back. Whoever ends it holds its row lock (or, for
// Stripe's events, the payer's lock); the order of what follows is this module's rule.

/** Why a subscription ends; each decides its status and the customer's e-mail. */
export type SubscriptionEnding =
  /** The paid period is over: `canceled` when it was cancelled at period end, else `expired`. */
  | { cause: "expiry" }
  /**
   * Cancelled at once: by staff (the customer is told it is cancelled), or at Stripe (told it
   * ended, when it was cancelled at period end). One no longer paid up keeps its status, unmailed.
   */
  | { cause: "cancel"; by: "staff" | "stripe" }
  /**
   * A refund or dispute took the payment back: recorded as applied (charge_reversals and the
   * ledger, so the same reversal arriving again changes nothing). `toldCents`: what the customer
   * is told was given back, when more than this one reversal (a refund of several orders).
   */
  | {
      cause: "reversal";
      reversal: Reversal & { orderNumber?: string };
      provider: LedgerEntry["provider"];
      toldCents?: number;
    };

export interface EndedSubscription {
  /** The subscription as it now is. */
  subscription: Subscription;
  revokedDevices: number;
}

export const STATUS_AFTER_REVERSAL: Record<ReversalKind, "refunded" | "disputed"> = {
  refund: "refunded",
  dispute: "disputed",
};

const REVERSED_STATUSES: readonly Subscription["status"][] = ["refunded", "disputed"];

/** Ends one subscription (see `endSubscriptions`). */
export async function endSubscription(
  tx: Transaction,
  services: CustomerEmailDeps,
  subscription: Subscription,
  ending: SubscriptionEnding,
  now: Date,
): Promise<EndedSubscription> {
  const { ended, revokedDevices } = await endSubscriptions(tx, services, [subscription], ending, now);
  return { subscription: ended[0]!, revokedDevices };
}

/**
 * Ends `due` (rows the caller has locked) for one cause: revokes their devices, sets status,
 * end date and no renewal, records the reversal, queues the customer's e-mail. `revokeAlso`:
 * subscriptions ended before whose devices are still live (expiry sweeps them up in the same step).
 * Answers the rows as they now are and how many devices were revoked.
 */
export async function endSubscriptions(
  tx: Transaction,
  services: CustomerEmailDeps,
  due: readonly Subscription[],
  ending: SubscriptionEnding,
  now: Date,
  revokeAlso: readonly string[] = [],
): Promise<{ ended: Subscription[]; revokedDevices: number }> {
  // Devices first: revoking locks their server's row, then its peer-version row, the order device
  // issuing takes them in; a status change first would take the peer-version row first (it logs
  // peer changes) and deadlock with a purchase on the same server.
  const revokedDevices = await revokeSubscriptionDevices(
    tx,
    [...due.map((subscription) => subscription.id), ...revokeAlso],
    now,
  );
  const ended: Subscription[] = [];
  for (const subscription of due) {
    const expiresAt = subscription.expiresAt < now ? subscription.expiresAt : now;
    const [row] = await tx
      .update(subscriptions)
      .set({ ...endedFields(subscription, ending), expiresAt, updatedAt: now })
      .where(eq(subscriptions.id, subscription.id))
      .returning();
    ended.push(row!);
    await queueEndedEmail(tx, services, subscription, row!, ending, now);
    if (ending.cause === "reversal") await recordApplied(tx, ending, subscription, now);
  }
  return { ended, revokedDevices };
}

function endedFields(
  subscription: Subscription,
  ending: SubscriptionEnding,
): Pick<Subscription, "status"> & Partial<Pick<Subscription, "cancelAtPeriodEnd">> {
  switch (ending.cause) {
    case "expiry":
      return { status: subscription.cancelAtPeriodEnd ? "canceled" : "expired" };
    case "cancel":
      return {
        status: isPaidUp(subscription.status) ? "canceled" : subscription.status,
        cancelAtPeriodEnd: false,
      };
    case "reversal":
      // A dispute stays on record: a refund arriving later does not turn it into "refunded".
      return {
        status: subscription.status === "disputed" ? "disputed" : STATUS_AFTER_REVERSAL[ending.reversal.kind],
      };
  }
}

/** What the customer hears: once, the first time the plan ends (or its money goes back). */
async function queueEndedEmail(
  tx: Transaction,
  services: CustomerEmailDeps,
  before: Subscription,
  ended: Subscription,
  ending: SubscriptionEnding,
  now: Date,
) {
  switch (ending.cause) {
    case "expiry":
      return queuePeriodEmail(tx, services, ended, "subscription-expired");
    case "cancel":
      if (!isPaidUp(before.status)) return;
      // Told of the cancellation when it was asked for at period end, the customer now hears it ended.
      if (ending.by === "stripe" && before.cancelAtPeriodEnd)
        return queuePeriodEmail(tx, services, ended, "subscription-expired");
      return queueCancelledEmail(tx, services, ended, now);
    case "reversal": {
      // A Stripe event for a refund staff made already changes nothing more.
      if (REVERSED_STATUSES.includes(before.status)) return;
      const { reversal, toldCents = reversal.amountCents } = ending;
      return queueRefundedEmail(
        tx,
        services,
        ended,
        customerNotice(
          before.id,
          { kind: reversal.kind, amountCents: toldCents, currency: reversal.currency },
          now,
        ),
      );
    }
  }
}

async function recordApplied(
  tx: Transaction,
  ending: Extract<SubscriptionEnding, { cause: "reversal" }>,
  subscription: Subscription,
  now: Date,
) {
  const { orderNumber: _orderNumber, ...held } = ending.reversal;
  await tx
    .insert(chargeReversals)
    .values({ ...held, appliedAt: now, subscriptionId: subscription.id })
    .onConflictDoNothing({ target: chargeReversals.id });
  await recordReversalMoney(tx, ending.reversal, subscription, ending.provider, now);
}

/** The refunded e-mail's account of a reversal. */
export function customerNotice(
  subscriptionId: string,
  reversal: Pick<Reversal, "kind" | "amountCents" | "currency">,
  now: Date,
) {
  return {
    kind: reversal.kind,
    orderNumber: orderNumberOf(subscriptionId),
    amountCents: reversal.amountCents,
    currency: reversal.currency,
    at: now,
  };
}
