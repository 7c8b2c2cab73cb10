import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { SUBSCRIPTION_STATUSES, subscriptions } from "./subscriptions.ts";

/** `amount_mismatch`: the provider reported a payment that differs from the recorded price; never fulfilled. */
export const CHECKOUT_STATUSES = ["open", "paid", "expired", "amount_mismatch"] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    id: text().primaryKey(),
    provider: text({ enum: ["stripe", "test"] }).notNull(),
    planId: text().notNull(),
    customerEmail: text(),
    /** The buyer's first and last name from the details step, else the name the provider's checkout took. */
    customerName: text(),
    /** The catalogue price when the session was created: what the buyer must pay. */
    amountCents: integer().notNull(),
    currency: text().notNull().default("usd"),
    status: text({ enum: CHECKOUT_STATUSES }).notNull().default("open"),
    paymentReference: text(),
    /** What the provider reported as paid, kept beside the price it was compared with. */
    paidAmountCents: integer(),
    paidCurrency: text(),
    /** SHA-256 of the paying browser's buyer cookie: the proof that may add devices. */
    buyerTokenHash: text(),
    /** A checkout from /account that extends this Unlock Pass or moves it to a plan (billing/plan-change.ts). */
    renewsSubscriptionId: uuid().references((): AnyPgColumn => subscriptions.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp({ withTimezone: true }),
    /**
     * Whether a subscription row names this session: kept by triggers on `subscriptions` and on
     * this table (migration 0081, decision 138), never written by the app. The waiting-buyers rule
     * reads the few paid sessions without one from the partial index below, not every paid order.
     */
    hasSubscription: boolean().notNull().default(false),
  },
  (table) => [
    // The subscriptions list, newest first, and its count: only the orders that became one (decision 138).
    index("checkout_sessions_with_subscription_created_at_id_idx")
      .on(table.createdAt, table.id)
      .where(sql`${table.hasSubscription}`),
    // Paid orders whose subscription is not recorded (decision 138): the waiting-buyers rule's candidates.
    index("checkout_sessions_without_subscription_idx")
      .on(table.createdAt)
      .where(
        sql`${table.status} = 'paid' and ${table.renewsSubscriptionId} is null and not ${table.hasSubscription}`,
      ),
    // The CSV export reads a date range a page at a time in this order (decision 106).
    index("checkout_sessions_created_at_id_idx").on(table.createdAt, table.id),
    // The orders list of one status, newest first, and its count (decision 131).
    index("checkout_sessions_status_created_at_id_idx").on(table.status, table.createdAt, table.id),
    // The console's search by a whole address and by payment reference.
    index("checkout_sessions_customer_email_idx").on(sql`lower(${table.customerEmail})`),
    index("checkout_sessions_payment_reference_idx").on(table.paymentReference),
    // The console's "contains" search of names and addresses (`ilike '%…%'`): trigrams (decision 138).
    index("checkout_sessions_customer_name_trgm_idx").using("gin", table.customerName.op("gin_trgm_ops")),
    index("checkout_sessions_customer_email_trgm_idx").using("gin", table.customerEmail.op("gin_trgm_ops")),
  ],
);

/** Payment-provider events already handled; a replay finds its id here and changes nothing. */
export const paymentEvents = pgTable("payment_events", {
  id: text().primaryKey(),
  type: text().notNull(),
  receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const REVERSAL_KINDS = ["refund", "dispute"] as const;
export type ReversalKind = (typeof REVERSAL_KINDS)[number];

/**
 * A full refund or a dispute that reached us before the payment it reverses (Stripe does not
 * promise event order). Held here, and applied by fulfilment when that payment lands.
 */
export const chargeReversals = pgTable(
  "charge_reversals",
  {
    /** The provider's id of the refunded charge or of the dispute. */
    id: text().primaryKey(),
    kind: text({ enum: REVERSAL_KINDS }).notNull(),
    paymentIntentId: text(),
    customerId: text(),
    amountCents: integer().notNull(),
    currency: text().notNull(),
    reason: text(),
    receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    appliedAt: timestamp({ withTimezone: true }),
    subscriptionId: uuid().references(() => subscriptions.id, { onDelete: "set null" }),
  },
  (table) => [
    index("charge_reversals_held_payment_intent_idx")
      .on(table.paymentIntentId)
      .where(sql`${table.appliedAt} is null`),
    index("charge_reversals_held_customer_idx")
      .on(table.customerId)
      .where(sql`${table.appliedAt} is null`),
  ],
);

export type CheckoutSession = typeof checkoutSessions.$inferSelect;
export type ChargeReversal = typeof chargeReversals.$inferSelect;

/**
 * The history of each subscription's status, period end and cancel-at-period-end: one row per
 * change, written only by a trigger on `subscriptions` (migration 0023).
 */
export const subscriptionEvents = pgTable(
  "subscription_events",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    subscriptionId: uuid()
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    /** The row's `updated_at` as the writer set it. */
    at: timestamp({ withTimezone: true }).notNull(),
    status: text({ enum: SUBSCRIPTION_STATUSES }).notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    cancelAtPeriodEnd: boolean().notNull(),
  },
  (table) => [
    index("subscription_events_subscription_idx").on(table.subscriptionId, table.id),
    // The dashboard's status changes of the last 30 days (decision 131).
    index("subscription_events_at_idx").on(table.at),
  ],
);

export type SubscriptionEvent = typeof subscriptionEvents.$inferSelect;

export const PLAN_CHANGE_KINDS = [
  "upgrade",
  "downgrade",
  "switch",
  "pass-extend",
  "pass-to-subscription",
] as const;
export type PlanChangeKind = (typeof PLAN_CHANGE_KINDS)[number];
export const PLAN_CHANGE_STATUSES = ["pending", "applied", "superseded"] as const;

/**
 * Each change of a subscription's plan: requested (pending while Stripe has not
 * confirmed it), then applied. A pass checkout's change names its session, once.
 */
export const planChanges = pgTable(
  "plan_changes",
  {
    id: uuid().primaryKey().defaultRandom(),
    subscriptionId: uuid()
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    kind: text({ enum: PLAN_CHANGE_KINDS }).notNull(),
    fromPlanId: text().notNull(),
    toPlanId: text().notNull(),
    /** The devices the customer chose to keep on a downgrade below their live devices. */
    keepDeviceIds: jsonb().$type<string[]>(),
    /** The price difference quoted: positive is charged, negative credited. */
    amountCents: integer().notNull(),
    currency: text().notNull().default("usd"),
    status: text({ enum: PLAN_CHANGE_STATUSES }).notNull().default("pending"),
    checkoutSessionId: text(),
    /** Set when staff made the change (the audit log says who and why). */
    staffUserId: text(),
    requestedAt: timestamp({ withTimezone: true }).notNull(),
    appliedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    check(
      "plan_changes_kind_check",
      sql`${table.kind} in ('upgrade', 'downgrade', 'switch', 'pass-extend', 'pass-to-subscription')`,
    ),
    check("plan_changes_status_check", sql`${table.status} in ('pending', 'applied', 'superseded')`),
    uniqueIndex("plan_changes_checkout_session_unique").on(table.checkoutSessionId),
    index("plan_changes_subscription_idx").on(table.subscriptionId, table.requestedAt),
  ],
);

export type PlanChange = typeof planChanges.$inferSelect;

/**
 * What a ledger row is (decision 120): a `charge` took money (first purchase, renewal, plan-change
 * charge, pass extension or move); a `credit` owes it back as a balance (a proration); a `refund`
 * gave it back; a `dispute` is money a bank took back, `dispute_won` money it returned, and
 * `dispute_lost` records the end of a dispute that moved nothing more.
 */
export const LEDGER_KINDS = ["charge", "credit", "refund", "dispute", "dispute_won", "dispute_lost"] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];
export const LEDGER_PURPOSES = [
  "purchase",
  "renewal",
  "plan_change",
  "pass_extension",
  "pass_to_subscription",
] as const;
export type LedgerPurpose = (typeof LEDGER_PURPOSES)[number];

/**
 * The ledger: every movement of money, once (billing/ledger.ts writes it; `key` makes a provider
 * event seen twice write once). Amounts are positive; the kind says which way the money went.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** What makes the movement unique, e.g. `charge:checkout:cs_…`, `refund:ch_…:999`. */
    key: text().notNull(),
    kind: text({ enum: LEDGER_KINDS }).notNull(),
    /** What a charge or credit paid for; null for refunds and disputes. */
    purpose: text({ enum: LEDGER_PURPOSES }),
    /** The order the movement belongs to, as printed on its receipt; a refund carries its charge's. */
    orderNumber: text().notNull(),
    amountCents: integer().notNull(),
    currency: text().notNull(),
    subscriptionId: uuid().references(() => subscriptions.id, { onDelete: "set null" }),
    checkoutSessionId: text(),
    planChangeId: uuid(),
    /** The plan the money was for (a plan change: the new plan). */
    planId: text(),
    customerEmail: text(),
    provider: text({ enum: ["stripe", "test"] }).notNull(),
    /** The provider's id: payment intent, invoice, charge, refund or dispute. */
    providerReference: text(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    recordedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("ledger_entries_key_unique").on(table.key),
    check("ledger_entries_amount_check", sql`${table.amountCents} >= 0`),
    check(
      "ledger_entries_kind_check",
      sql`${table.kind} in ('charge', 'credit', 'refund', 'dispute', 'dispute_won', 'dispute_lost')`,
    ),
    index("ledger_entries_subscription_idx").on(table.subscriptionId, table.occurredAt),
    index("ledger_entries_order_number_idx").on(table.orderNumber),
    index("ledger_entries_occurred_at_id_idx").on(table.occurredAt, table.id),
    // The dashboard's sums of a window (decision 138): read from the index alone, not the rows.
    index("ledger_entries_occurred_at_figures_idx").on(
      table.occurredAt,
      table.kind,
      table.planId,
      table.amountCents,
    ),
    index("ledger_entries_checkout_session_idx").on(table.checkoutSessionId),
  ],
);

export type LedgerEntry = typeof ledgerEntries.$inferSelect;

/** Money Stripe moved that the books lack, a book row Stripe does not have, or amounts that differ. */
export const RECONCILIATION_KINDS = ["missing_from_ledger", "missing_from_stripe", "amount_differs"] as const;
export type ReconciliationKind = (typeof RECONCILIATION_KINDS)[number];

/**
 * A difference between the ledger and Stripe that reconciliation found (decision 124): one open
 * row per difference (its key), seen again by each run that still finds it, resolved when a run
 * no longer does. The same difference found after it was resolved is a new row.
 */
export const reconciliationFindings = pgTable(
  "reconciliation_findings",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** What differs, e.g. `refund-missing:re_…`, `charge-amount:ch_…`, `ledger-unknown:<ledger row id>`. */
    key: text().notNull(),
    kind: text({ enum: RECONCILIATION_KINDS }).notNull(),
    /** The Stripe object it is about (charge, refund or dispute id), when Stripe has one. */
    stripeId: text(),
    orderNumber: text(),
    ledgerCents: integer(),
    ledgerCurrency: text(),
    stripeCents: integer(),
    stripeCurrency: text(),
    /** What differs, in a sentence. */
    detail: text().notNull(),
    /** What to do about it. */
    fix: text().notNull(),
    firstSeenAt: timestamp({ withTimezone: true }).notNull(),
    lastSeenAt: timestamp({ withTimezone: true }).notNull(),
    resolvedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("reconciliation_findings_open_key_unique")
      .on(table.key)
      .where(sql`${table.resolvedAt} is null`),
  ],
);

export type ReconciliationFinding = typeof reconciliationFindings.$inferSelect;

/** Each completed comparison with Stripe: when, from when, and how much it compared. */
export const reconciliationRuns = pgTable(
  "reconciliation_runs",
  {
    id: uuid().primaryKey().defaultRandom(),
    ranAt: timestamp({ withTimezone: true }).notNull(),
    since: timestamp({ withTimezone: true }).notNull(),
    stripeObjects: integer().notNull(),
    ledgerRows: integer().notNull(),
    openFindings: integer().notNull(),
  },
  (table) => [index("reconciliation_runs_ran_at_idx").on(table.ranAt)],
);
