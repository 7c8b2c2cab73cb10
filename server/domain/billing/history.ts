import { and, asc, eq, inArray, isNotNull } from "drizzle-orm";
import { findPlan } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { chargeReversals, checkoutSessions, subscriptions } from "#server/db/schema/index.ts";
import { orderNumberOf } from "./self-service.ts";

// The payment history a Stripe Customer Portal would show, for plans the built-in checkout sold:
// every payment and every refund or dispute of the given subscriptions. Callers
// pass only the subscriptions the signed-in customer owns.

export interface BillingHistoryEntry {
  kind: "payment" | "refund" | "dispute";
  at: string;
  subscriptionId: string;
  orderNumber: string;
  planName: string;
  /** Positive for a payment; what went back, positive too, for a refund or dispute. */
  amountCents: number;
  currency: string;
  /** A payment's state now: paid, refunded or disputed; a reversal's own kind. */
  status: "paid" | "refunded" | "disputed";
}

/** Newest first. */
export async function billingHistory(
  executor: Executor,
  subscriptionIds: string[],
): Promise<BillingHistoryEntry[]> {
  if (subscriptionIds.length === 0) return [];
  const [payments, reversals] = await Promise.all([
    executor
      .select({ subscription: subscriptions, session: checkoutSessions })
      .from(subscriptions)
      .innerJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .where(inArray(subscriptions.id, subscriptionIds)),
    executor
      .select()
      .from(chargeReversals)
      .where(
        and(inArray(chargeReversals.subscriptionId, subscriptionIds), isNotNull(chargeReversals.appliedAt)),
      ),
  ]);
  const planNames = new Map(
    payments.map(({ subscription }) => [
      subscription.id,
      findPlan(subscription.planId)?.name ?? subscription.planId,
    ]),
  );
  const entries: BillingHistoryEntry[] = payments.map(({ subscription, session }) => {
    const reversal = reversals.find((row) => row.subscriptionId === subscription.id);
    return {
      kind: "payment",
      at: (session.paidAt ?? subscription.createdAt).toISOString(),
      subscriptionId: subscription.id,
      orderNumber: orderNumberOf(subscription.id),
      planName: planNames.get(subscription.id)!,
      amountCents: session.paidAmountCents ?? session.amountCents,
      currency: session.paidCurrency ?? session.currency,
      status: !reversal ? "paid" : reversal.kind === "dispute" ? "disputed" : "refunded",
    };
  });
  for (const reversal of reversals) {
    const subscriptionId = reversal.subscriptionId!;
    entries.push({
      kind: reversal.kind,
      at: reversal.appliedAt!.toISOString(),
      subscriptionId,
      orderNumber: orderNumberOf(subscriptionId),
      planName: planNames.get(subscriptionId) ?? "",
      amountCents: reversal.amountCents,
      currency: reversal.currency,
      status: reversal.kind === "dispute" ? "disputed" : "refunded",
    });
  }
  return entries.sort((a, b) => b.at.localeCompare(a.at));
}

/** When each of these subscriptions' payment went back (the first reversal applied to it). */
export async function reversalDates(
  executor: Executor,
  subscriptionIds: string[],
): Promise<Map<string, Date>> {
  const rows = await executor
    .select({ subscriptionId: chargeReversals.subscriptionId, at: chargeReversals.appliedAt })
    .from(chargeReversals)
    .where(
      and(inArray(chargeReversals.subscriptionId, subscriptionIds), isNotNull(chargeReversals.appliedAt)),
    )
    .orderBy(asc(chargeReversals.appliedAt));
  const dates = new Map<string, Date>();
  for (const row of rows) if (!dates.has(row.subscriptionId!)) dates.set(row.subscriptionId!, row.at!);
  return dates;
}
