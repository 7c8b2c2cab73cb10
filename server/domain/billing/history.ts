import { and, asc, inArray, isNotNull } from "drizzle-orm";
import { findPlan } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import {
  chargeReversals,
  type LedgerEntry,
  type LedgerKind,
  type LedgerPurpose,
} from "#server/db/schema/index.ts";
import { planChange, type AwaitingPayment } from "./plan-change.ts";
import { LEDGER_SIGN, ledgerOfSubscriptions } from "./ledger.ts";

// The payment history a Stripe Customer Portal would show: every row of the ledger (ledger.ts)
// of the given subscriptions. Callers pass only the subscriptions the signed-in customer owns.

export interface BillingHistoryEntry {
  kind: "payment" | Exclude<LedgerKind, "charge">;
  /** What the money was for, in words: "Payment: renewal", "Credit: plan change", "Refund". */
  what: string;
  at: string;
  subscriptionId: string;
  orderNumber: string;
  planName: string;
  /** Always positive; `sign` says which way it went (a lost dispute moves nothing more). */
  amountCents: number;
  sign: 1 | 0 | -1;
  currency: string;
  /**
   * A payment's state now: paid, or refunded / disputed once its order was reversed in full;
   * `awaiting`: a Stripe plan change whose invoice is not paid yet (no ledger row: sign 0).
   */
  status: "paid" | "refunded" | "disputed" | "credited" | "won" | "lost" | "awaiting";
}

const PURPOSE_WORDS: Record<LedgerPurpose, string> = {
  purchase: "purchase",
  renewal: "renewal",
  plan_change: "plan change",
  pass_extension: "pass extended",
  pass_to_subscription: "pass moved to a plan",
};
const KIND_WORDS: Record<LedgerKind, string> = {
  charge: "Payment",
  credit: "Credit",
  refund: "Refund",
  dispute: "Dispute",
  dispute_won: "Dispute won",
  dispute_lost: "Dispute lost",
};

/** Newest first: the payments still awaited (plan-change.ts), then the ledger's rows. */
export async function billingHistory(
  executor: Executor,
  subscriptionIds: string[],
): Promise<BillingHistoryEntry[]> {
  const [awaiting, rows] = await Promise.all([
    planChange({ step: "awaiting", executor, subscriptionIds }),
    ledgerOfSubscriptions(executor, subscriptionIds),
  ]);
  return [...awaiting.map(awaitingEntry), ...historyEntries(rows)];
}

/** A plan change Stripe has not been paid for yet: listed, counted nowhere. */
export function awaitingEntry(awaiting: AwaitingPayment): BillingHistoryEntry {
  return {
    kind: "payment",
    what: `Payment: ${PURPOSE_WORDS.plan_change}`,
    at: awaiting.requestedAt,
    subscriptionId: awaiting.subscriptionId,
    orderNumber: awaiting.orderNumber,
    planName: awaiting.planName,
    amountCents: awaiting.amountCents,
    sign: 0,
    currency: awaiting.currency,
    status: "awaiting",
  };
}

/** The entries of these ledger rows, in their order. */
export function historyEntries(rows: LedgerEntry[]): BillingHistoryEntry[] {
  return rows.map((row) => {
    const reversed = rows.filter(
      (other) =>
        other.orderNumber === row.orderNumber && (other.kind === "refund" || other.kind === "dispute"),
    );
    const reversedCents = reversed.reduce((sum, other) => sum + other.amountCents, 0);
    return {
      kind: row.kind === "charge" ? "payment" : row.kind,
      what: row.purpose ? `${KIND_WORDS[row.kind]}: ${PURPOSE_WORDS[row.purpose]}` : KIND_WORDS[row.kind],
      at: row.occurredAt.toISOString(),
      subscriptionId: row.subscriptionId!,
      orderNumber: row.orderNumber,
      planName: row.planId ? (findPlan(row.planId)?.name ?? row.planId) : "",
      amountCents: row.amountCents,
      sign: LEDGER_SIGN[row.kind],
      currency: row.currency,
      status: statusOf(row, reversed, reversedCents),
    };
  });
}

function statusOf(
  row: LedgerEntry,
  reversed: LedgerEntry[],
  reversedCents: number,
): BillingHistoryEntry["status"] {
  switch (row.kind) {
    case "charge":
      if (reversedCents < row.amountCents) return "paid";
      return reversed.some((other) => other.kind === "dispute") ? "disputed" : "refunded";
    case "credit":
      return "credited";
    case "dispute_won":
      return "won";
    case "dispute_lost":
      return "lost";
    case "dispute":
      return "disputed";
    default:
      return "refunded";
  }
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
