import { and, desc, eq, gte, inArray, isNull, ne, sql } from "drizzle-orm";
import { findPlan } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { ledgerEntries, planChanges, subscriptions } from "#server/db/schema/index.ts";
import { isPaidUp } from "#server/domain/vpn/usable.ts";
import { orderNumberOf } from "./ledger.ts";

// A Stripe plan change Stripe invoices at once (monthly ↔ yearly) is paid when Stripe says its
// invoice is: until `invoice.paid` records its charge on the ledger (webhook-events.ts, with the
// plan change's id and order number), /account and the console show it as awaiting payment.
// The built-in checkout records a plan change's money when it is made, so it never waits.

export interface AwaitingPayment {
  subscriptionId: string;
  planChangeId: string;
  /** The number its order will carry once paid (its charge takes it from the plan change). */
  orderNumber: string;
  planId: string;
  planName: string;
  /** What was quoted; Stripe's invoice says what is charged. */
  amountCents: number;
  currency: string;
  requestedAt: string;
}

/** Whether Stripe invoices this change at once: a change of billing interval restarts the period. */
export const invoicedAtOnce = (fromPlanId: string, toPlanId: string) =>
  findPlan(fromPlanId)?.interval !== findPlan(toPlanId)?.interval;

/**
 * The plan changes of these Stripe-billed subscriptions whose invoice is not paid yet: the latest
 * change of each, when it charges now and no ledger row names it. A plan that has ended waits for nothing.
 */
export async function awaitingPayments(
  executor: Executor,
  subscriptionIds: string[],
): Promise<AwaitingPayment[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await executor
    .select({ change: planChanges, status: subscriptions.status })
    .from(planChanges)
    .innerJoin(subscriptions, eq(subscriptions.id, planChanges.subscriptionId))
    .where(
      and(
        inArray(planChanges.subscriptionId, subscriptionIds),
        ne(planChanges.status, "superseded"),
        inArray(planChanges.kind, ["upgrade", "downgrade", "switch"]),
        sql`${subscriptions.stripeSubscriptionId} is not null`,
      ),
    )
    .orderBy(desc(planChanges.requestedAt));
  const latest = new Map<string, (typeof rows)[number]>();
  for (const row of rows)
    if (!latest.has(row.change.subscriptionId)) latest.set(row.change.subscriptionId, row);
  const candidates = [...latest.values()].filter(
    ({ change, status }) =>
      isPaidUp(status) && change.amountCents > 0 && invoicedAtOnce(change.fromPlanId, change.toPlanId),
  );
  if (candidates.length === 0) return [];
  const paid = await executor
    .select({ planChangeId: ledgerEntries.planChangeId })
    .from(ledgerEntries)
    .where(
      inArray(
        ledgerEntries.planChangeId,
        candidates.map(({ change }) => change.id),
      ),
    );
  const paidIds = new Set(paid.map((row) => row.planChangeId));
  return candidates
    .filter(({ change }) => !paidIds.has(change.id))
    .map(({ change }) => ({
      subscriptionId: change.subscriptionId,
      planChangeId: change.id,
      orderNumber: orderNumberOf(change.id),
      planId: change.toPlanId,
      planName: findPlan(change.toPlanId)?.name ?? change.toPlanId,
      amountCents: change.amountCents,
      currency: change.currency,
      requestedAt: change.requestedAt.toISOString(),
    }));
}

/**
 * The plan change a Stripe `subscription_update` invoice pays: the subscription's latest change
 * that no ledger row names yet. Undefined when there is none (a change made in Stripe's Dashboard
 * whose `customer.subscription.updated` has not arrived: `linkInvoicedChange` names it then).
 */
export async function unpaidPlanChange(executor: Executor, subscriptionId: string) {
  const [change] = await executor
    .select()
    .from(planChanges)
    .where(
      and(
        eq(planChanges.subscriptionId, subscriptionId),
        ne(planChanges.status, "superseded"),
        inArray(planChanges.kind, ["upgrade", "downgrade", "switch"]),
        sql`not exists (select 1 from ${ledgerEntries} where ${ledgerEntries.planChangeId} = ${planChanges.id})`,
      ),
    )
    .orderBy(desc(planChanges.requestedAt))
    .limit(1);
  return change;
}

/**
 * A plan change recorded after the invoice that paid it (Stripe does not promise event order):
 * the invoice's rows, recorded with no plan change, now name it. Their order number stays the one
 * the receipt already gave.
 */
export async function linkInvoicedChange(
  executor: Executor,
  subscriptionId: string,
  planChangeId: string,
  /** When the change before it was asked for: older invoices paid that one. */
  since: Date | null,
) {
  await executor
    .update(ledgerEntries)
    .set({ planChangeId })
    .where(
      and(
        eq(ledgerEntries.subscriptionId, subscriptionId),
        eq(ledgerEntries.provider, "stripe"),
        eq(ledgerEntries.purpose, "plan_change"),
        isNull(ledgerEntries.planChangeId),
        since ? gte(ledgerEntries.occurredAt, since) : undefined,
      ),
    );
}
