import crypto from "node:crypto";
import { desc, inArray, sql } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import {
  LEDGER_KINDS,
  ledgerEntries,
  type CheckoutSession,
  type Subscription,
  type LedgerEntry,
  type LedgerKind,
  type LedgerPurpose,
} from "#server/db/schema/index.ts";
import { queueReceiptEmail, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";

// The ledger (decision 120): the one record of money. Every place money moves — a checkout paid,
// a Stripe invoice paid, a plan change charged or credited in the demo store, a refund, a
// dispute opened or closed — writes one row here through `recordMoney`, in the transaction of the
// change it pays for. Receipts, /account/billing, the console's pages and revenue figures, the
// CSV export and the metrics all read these rows, so they cannot disagree.

/** Which way each kind moves net revenue. */
export const LEDGER_SIGN: Record<LedgerKind, 1 | 0 | -1> = {
  charge: 1,
  credit: -1,
  refund: -1,
  dispute: -1,
  dispute_won: 1,
  dispute_lost: 0,
};

/** `3F2A-9C1B-7D04`: the first 48 bits of a random id, easy to read out to support. */
export function orderNumberOf(id: string): string {
  const hex = id.replace(/-/g, "").slice(0, 12).toUpperCase();
  return hex.match(/.{4}/g)!.join("-");
}

/** The order number as typed (any case, dashes or spaces optional), normalised; null when it is none. */
export function parseOrderNumber(text: string): string | null {
  const match = /^([0-9a-f]{4})[- ]?([0-9a-f]{4})[- ]?([0-9a-f]{4})$/i.exec(text.trim());
  return match ? match.slice(1).join("-").toUpperCase() : null;
}

export interface MoneyMovement {
  /** Unique per movement: the same movement reported twice (a webhook replay) carries the same key. */
  key: string;
  kind: LedgerKind;
  purpose?: LedgerPurpose | null;
  /** Defaults to a new order number of the row's own. */
  orderNumber?: string;
  amountCents: number;
  currency: string;
  subscriptionId: string | null;
  checkoutSessionId?: string | null;
  planChangeId?: string | null;
  planId?: string | null;
  customerEmail?: string | null;
  provider: LedgerEntry["provider"];
  providerReference?: string | null;
  occurredAt: Date;
}

/**
 * Records one movement of money, once: undefined when a row with its key exists already (the
 * caller then sends no second receipt).
 */
export async function recordMoney(
  executor: Executor,
  movement: MoneyMovement,
): Promise<LedgerEntry | undefined> {
  const id = crypto.randomUUID();
  const [row] = await executor
    .insert(ledgerEntries)
    .values({
      id,
      key: movement.key,
      kind: movement.kind,
      purpose: movement.purpose ?? null,
      orderNumber: movement.orderNumber ?? orderNumberOf(id),
      amountCents: Math.abs(movement.amountCents),
      currency: movement.currency.toLowerCase(),
      subscriptionId: movement.subscriptionId,
      checkoutSessionId: movement.checkoutSessionId ?? null,
      planChangeId: movement.planChangeId ?? null,
      planId: movement.planId ?? null,
      customerEmail: movement.customerEmail ?? null,
      provider: movement.provider,
      providerReference: movement.providerReference ?? null,
      occurredAt: movement.occurredAt,
    })
    .onConflictDoNothing({ target: ledgerEntries.key })
    .returning();
  return row;
}

/**
 * Records a charge and, the first time it is recorded, queues its receipt e-mail with its own
 * order number (after the change it paid for, so the receipt names the plan and period it bought).
 */
export async function recordCharge(
  executor: Executor,
  deps: CustomerEmailDeps,
  subscription: Subscription,
  charge: Omit<MoneyMovement, "kind" | "subscriptionId">,
): Promise<LedgerEntry | undefined> {
  const row = await recordMoney(executor, {
    ...charge,
    kind: "charge",
    subscriptionId: subscription.id,
    customerEmail: charge.customerEmail ?? subscription.customerEmail,
  });
  if (row) await queueReceipt(executor, deps, subscription, row);
  return row;
}

/** The receipt e-mail of one charge, with its own order number. */
export function queueReceipt(
  executor: Executor,
  deps: CustomerEmailDeps,
  subscription: Subscription,
  charge: LedgerEntry,
) {
  return queueReceiptEmail(executor, deps, subscription, {
    orderNumber: charge.orderNumber,
    amountCents: charge.amountCents,
    currency: charge.currency,
    paidAt: charge.occurredAt,
  });
}

/** The ledger's record of the payment a paid checkout took. */
export function checkoutCharge(session: CheckoutSession, orderNumber: string, now: Date) {
  return {
    key: `charge:checkout:${session.id}`,
    purpose: "purchase" as const,
    orderNumber,
    amountCents: session.paidAmountCents ?? session.amountCents,
    currency: session.paidCurrency ?? session.currency,
    checkoutSessionId: session.id,
    planId: session.planId,
    customerEmail: session.customerEmail,
    provider: session.provider,
    providerReference: session.paymentReference,
    occurredAt: session.paidAt ?? now,
  };
}

/** Net revenue of these rows, in cents: charges and won disputes in, credits, refunds and disputes out. */
export function netCents(entries: Pick<LedgerEntry, "kind" | "amountCents">[]): number {
  return entries.reduce((sum, entry) => sum + LEDGER_SIGN[entry.kind] * entry.amountCents, 0);
}

/** The rows of these subscriptions, newest first (the customer's billing history, a console page). */
export async function ledgerOfSubscriptions(
  executor: Executor,
  subscriptionIds: string[],
): Promise<LedgerEntry[]> {
  if (subscriptionIds.length === 0) return [];
  return executor
    .select()
    .from(ledgerEntries)
    .where(inArray(ledgerEntries.subscriptionId, subscriptionIds))
    .orderBy(desc(ledgerEntries.occurredAt), desc(ledgerEntries.id));
}

/** What is left to refund of each charge of a subscription: its amount less its order's credits, refunds and disputes. */
export async function refundableCharges(
  executor: Executor,
  subscriptionId: string,
): Promise<Array<{ charge: LedgerEntry; refundableCents: number }>> {
  const rows = await ledgerOfSubscriptions(executor, [subscriptionId]);
  return rows
    .filter((row) => row.kind === "charge")
    .map((charge) => {
      const taken = rows
        .filter(
          (row) =>
            row.orderNumber === charge.orderNumber &&
            // A credit on the charge's own order (an invoice's proration line) lowered what was taken.
            (row.kind === "refund" || row.kind === "dispute" || row.kind === "credit"),
        )
        .reduce((sum, row) => sum + row.amountCents, 0);
      return { charge, refundableCents: Math.max(0, charge.amountCents - taken) };
    })
    .filter((entry) => entry.refundableCents > 0);
}

/** What the ledger recorded of each kind, all time, in cents (the /metrics gauges). */
export async function ledgerTotalsByKind(executor: Executor): Promise<Record<LedgerKind, number>> {
  const rows = await executor
    .select({
      kind: ledgerEntries.kind,
      cents: sql<number>`coalesce(sum(${ledgerEntries.amountCents}), 0)`.mapWith(Number),
    })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.kind);
  const totals = Object.fromEntries(LEDGER_KINDS.map((kind) => [kind, 0])) as Record<LedgerKind, number>;
  for (const row of rows) totals[row.kind] = row.cents;
  return totals;
}

/** A refund or dispute of a payment, as the ledger records it. */
export interface ReversalMoney {
  /** Stripe's refunded charge or dispute id; the built-in checkout's own refund id. */
  id: string;
  kind: "refund" | "dispute";
  /** A refund: the charge's refunded total so far (Stripe reports it so); a dispute: its amount. */
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  /** The order it reverses, when the caller knows it; else found by payment intent. */
  orderNumber?: string;
}

/**
 * Records the money a refund or dispute took back from the subscription's payment, once. A
 * refund's amount is the charge's refunded total, so each partial refund records what it added.
 * It carries the order number of the charge it reverses (by payment intent), else the purchase's.
 */
export async function recordReversalMoney(
  executor: Executor,
  reversal: ReversalMoney,
  subscription: Pick<Subscription, "id" | "planId" | "customerEmail">,
  provider: LedgerEntry["provider"],
  now: Date,
): Promise<LedgerEntry | undefined> {
  const rows = await ledgerOfSubscriptions(executor, [subscription.id]);
  const charges = rows.filter((row) => row.kind === "charge");
  const charge =
    charges.find((row) => reversal.orderNumber && row.orderNumber === reversal.orderNumber) ??
    charges.find((row) => reversal.paymentIntentId && row.providerReference === reversal.paymentIntentId) ??
    charges.find((row) => row.purpose === "purchase");
  const before = rows
    .filter((row) => row.kind === reversal.kind && row.providerReference === reversal.id)
    .reduce((sum, row) => sum + row.amountCents, 0);
  const amountCents = reversal.kind === "refund" ? reversal.amountCents - before : reversal.amountCents;
  if (amountCents <= 0) return undefined;
  return recordMoney(executor, {
    key:
      reversal.kind === "refund" ? `refund:${reversal.id}:${reversal.amountCents}` : `dispute:${reversal.id}`,
    kind: reversal.kind,
    orderNumber: charge?.orderNumber ?? reversal.orderNumber ?? orderNumberOf(subscription.id),
    amountCents,
    currency: reversal.currency,
    subscriptionId: subscription.id,
    planId: charge?.planId ?? subscription.planId,
    customerEmail: subscription.customerEmail,
    provider,
    providerReference: reversal.id,
    occurredAt: now,
  });
}
