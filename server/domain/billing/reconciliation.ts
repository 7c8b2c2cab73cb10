import { and, desc, eq, gte, inArray, isNull, notInArray, sql } from "drizzle-orm";
import type Stripe from "stripe";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import {
  ledgerEntries,
  reconciliationFindings,
  reconciliationRuns,
  type LedgerEntry,
  type ReconciliationFinding,
  type ReconciliationKind,
} from "#server/db/schema/index.ts";
import { alertLedgerDifferences } from "#server/domain/ops/alerts.ts";
import { DAY_MS } from "#server/domain/time.ts";
import type { AppServices } from "#server/services.ts";
import { stripeClient, stripeIdOf, type StripeSettings } from "./stripe-provider.ts";

// Reconciliation (decision 124): the ledger against Stripe. Once a day (live mode) the charges,
// refunds and disputes Stripe created in the last 35 days are compared with the ledger's rows of
// the same window. Each difference is stored once as a finding keyed by what differs: a run that
// finds it again only marks it seen, so staff are alerted once; a run that no longer finds it
// marks it resolved. `npm run doctor` runs the same comparison without storing anything.

export const RECONCILE_WINDOW_DAYS = 35;
/** Stripe is listed a day further back, so a ledger row near the window's start finds its payment. */
const MARGIN_MS = DAY_MS;
/** Per list; a store past it in 36 days is told so rather than compared in part. */
export const STRIPE_LIST_CAP = 10_000;

/** One difference between the books and Stripe, keyed by what differs. */
export interface Difference {
  key: string;
  kind: ReconciliationKind;
  stripeId: string | null;
  orderNumber: string | null;
  ledgerCents: number | null;
  ledgerCurrency: string | null;
  stripeCents: number | null;
  stripeCurrency: string | null;
  detail: string;
  fix: string;
}

export interface Comparison {
  since: Date;
  stripeObjects: number;
  ledgerRows: number;
  differences: Difference[];
}

/** What Stripe created since a time: its charges, refunds (with their charge), disputes and paid invoices. */
export interface StripeMoney {
  charges: Stripe.Charge[];
  refunds: Stripe.Refund[];
  disputes: Stripe.Dispute[];
  invoices: Stripe.Invoice[];
}

const money = (cents: number | null, currency: string | null) =>
  cents === null ? "nothing" : `${(cents / 100).toFixed(2)} ${(currency ?? "").toUpperCase()}`;
const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

async function listAll<T>(what: string, list: Stripe.ApiListPromise<T>): Promise<T[]> {
  const items = await list.autoPagingToArray({ limit: STRIPE_LIST_CAP });
  if (items.length >= STRIPE_LIST_CAP)
    throw new Error(
      `Stripe lists ${STRIPE_LIST_CAP.toLocaleString("en")} or more ${what} in ${RECONCILE_WINDOW_DAYS + 1} days: reconciliation compares up to that many`,
    );
  return items;
}

/** Everything Stripe created since `from`, every page (auto-pagination, bounded). */
export async function listStripeMoney(config: StripeSettings, from: Date): Promise<StripeMoney> {
  const client = await stripeClient(config);
  const created = { gte: Math.floor(from.getTime() / 1000) };
  return {
    charges: await listAll("charges", client.charges.list({ created, limit: 100 })),
    refunds: await listAll("refunds", client.refunds.list({ created, limit: 100, expand: ["data.charge"] })),
    disputes: await listAll("disputes", client.disputes.list({ created, limit: 100 })),
    invoices: await listAll(
      "invoices",
      client.invoices.list({ created, limit: 100, status: "paid", expand: ["data.payments"] }),
    ),
  };
}

function invoiceSubscription(invoice: Stripe.Invoice): string | null {
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return stripeIdOf(invoice.parent?.subscription_details?.subscription) ?? stripeIdOf(legacy);
}

/** Each paid invoice by the payment intent that paid it. */
function invoicesByIntent(invoices: Stripe.Invoice[]): Map<string, Stripe.Invoice> {
  const byIntent = new Map<string, Stripe.Invoice>();
  for (const invoice of invoices)
    for (const entry of invoice.payments?.data ?? []) {
      const intent = stripeIdOf(entry.payment.payment_intent);
      if (intent) byIntent.set(intent, invoice);
    }
  return byIntent;
}

/**
 * The references a ledger charge of this Stripe charge may carry: its payment intent (a one-time
 * checkout), its invoice (a renewal or plan change), or the subscription a first invoice started
 * (a subscription checkout records the subscription, its first invoice being the checkout's).
 */
function referencesOf(charge: Stripe.Charge, invoiceOfIntent: Map<string, Stripe.Invoice>): string[] {
  const intent = stripeIdOf(charge.payment_intent);
  const invoice = intent ? invoiceOfIntent.get(intent) : undefined;
  const subscription =
    invoice?.billing_reason === "subscription_create" ? invoiceSubscription(invoice) : null;
  return [intent, invoice?.id ?? null, subscription, charge.id].filter((ref): ref is string => !!ref);
}

/** The ledger's rows the comparison needs: the window's, and any older row a listed Stripe object names. */
async function ledgerRowsFor(executor: Executor, since: Date, references: string[]): Promise<LedgerEntry[]> {
  const named: LedgerEntry[] = [];
  for (let start = 0; start < references.length; start += 1000) {
    named.push(
      ...(await executor
        .select()
        .from(ledgerEntries)
        .where(
          and(
            eq(ledgerEntries.provider, "stripe"),
            inArray(ledgerEntries.providerReference, references.slice(start, start + 1000)),
          ),
        )),
    );
  }
  const recent = await executor
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.provider, "stripe"), gte(ledgerEntries.occurredAt, since)));
  return [...new Map([...named, ...recent].map((row) => [row.id, row])).values()];
}

/**
 * The differences between `ledger` (Stripe's rows: the window's and those the listed objects
 * name) and what Stripe listed. Stripe's objects created before `since` (the margin) only
 * match rows; they are never reported themselves.
 */
export function differencesBetween(ledger: LedgerEntry[], stripe: StripeMoney, since: Date): Difference[] {
  const sinceSeconds = Math.floor(since.getTime() / 1000);
  const inWindow = (row: LedgerEntry) => row.occurredAt >= since;
  const differences: Difference[] = [];
  const matched = new Set<string>();
  const rowsOf = (kind: LedgerEntry["kind"], reference: string) =>
    ledger.filter((row) => row.kind === kind && row.providerReference === reference);

  // Charges: each paid Stripe charge has one ledger charge, of the same amount (less the credit
  // recorded beside an invoice's charge) and currency.
  const invoiceOfIntent = invoicesByIntent(stripe.invoices);
  for (const charge of stripe.charges) {
    if (charge.status !== "succeeded") continue;
    const reported = charge.created >= sinceSeconds;
    const reference = referencesOf(charge, invoiceOfIntent).find((ref) => rowsOf("charge", ref).length);
    if (!reference) {
      if (reported)
        differences.push({
          key: `charge-missing:${charge.id}`,
          kind: "missing_from_ledger",
          stripeId: charge.id,
          orderNumber: null,
          ledgerCents: null,
          ledgerCurrency: null,
          stripeCents: charge.amount,
          stripeCurrency: charge.currency,
          detail: `charge ${charge.id} in Stripe (${money(charge.amount, charge.currency)} on ${day(charge.created)}, payment ${stripeIdOf(charge.payment_intent) ?? "none"}) is not in the books`,
          fix: "find the payment in the Stripe dashboard and check that its webhook event was delivered (Developers → Webhooks → resend it); the app records it when the event arrives",
        });
      continue;
    }
    const [row] = rowsOf("charge", reference);
    matched.add(row!.id);
    const credited = rowsOf("credit", reference).reduce((sum, credit) => sum + credit.amountCents, 0);
    const ledgerCents = row!.amountCents - credited;
    if (ledgerCents === charge.amount && row!.currency === charge.currency) continue;
    differences.push({
      key: `charge-amount:${charge.id}`,
      kind: "amount_differs",
      stripeId: charge.id,
      orderNumber: row!.orderNumber,
      ledgerCents,
      ledgerCurrency: row!.currency,
      stripeCents: charge.amount,
      stripeCurrency: charge.currency,
      detail: `charge ${charge.id} (order ${row!.orderNumber}) is ${money(ledgerCents, row!.currency)} in the books but ${money(charge.amount, charge.currency)} in Stripe`,
      fix: "Stripe's amount is what the buyer paid: check the order in the Stripe dashboard and correct the books' row with your accountant",
    });
  }

  // Refunds: what Stripe refunded of each charge (its refunded total) against the ledger's
  // refunds of it. A webhook that never arrived leaves the newest refunds out of the books.
  const refundsByCharge = new Map<string, { charge: Stripe.Charge | null; refunds: Stripe.Refund[] }>();
  for (const refund of stripe.refunds) {
    const chargeId = stripeIdOf(refund.charge);
    if (!chargeId || refund.status === "failed" || refund.status === "canceled") continue;
    const entry = refundsByCharge.get(chargeId) ?? { charge: null, refunds: [] };
    if (refund.charge && typeof refund.charge !== "string") entry.charge = refund.charge;
    entry.refunds.push(refund);
    refundsByCharge.set(chargeId, entry);
  }
  for (const [chargeId, { charge, refunds }] of refundsByCharge) {
    const rows = rowsOf("refund", chargeId);
    for (const row of rows) matched.add(row.id);
    const ledgerCents = rows.reduce((sum, row) => sum + row.amountCents, 0);
    const stripeCents = charge?.amount_refunded ?? refunds.reduce((sum, refund) => sum + refund.amount, 0);
    const stripeCurrency = charge?.currency ?? refunds[0]!.currency;
    const orderNumber = rows[0]?.orderNumber ?? null;
    const ledgerCurrency = rows[0]?.currency ?? null;
    const currencyDiffers = ledgerCurrency !== null && ledgerCurrency !== stripeCurrency;
    let missingCents = currencyDiffers ? 0 : stripeCents - ledgerCents;
    for (const refund of [...refunds].sort((a, b) => b.created - a.created)) {
      if (missingCents <= 0 || refund.amount > missingCents) break;
      missingCents -= refund.amount;
      if (refund.created < sinceSeconds) continue;
      differences.push({
        key: `refund-missing:${refund.id}`,
        kind: "missing_from_ledger",
        stripeId: refund.id,
        orderNumber,
        ledgerCents: null,
        ledgerCurrency: null,
        stripeCents: refund.amount,
        stripeCurrency: refund.currency,
        detail: `refund ${refund.id} in Stripe (${money(refund.amount, refund.currency)} of charge ${chargeId}, ${day(refund.created)}) is not in the books`,
        fix: "resend the charge's charge.refunded event from the Stripe dashboard (Developers → Webhooks); the app records the refund when it arrives",
      });
    }
    const reportable = refunds.some((refund) => refund.created >= sinceSeconds) || rows.some(inWindow);
    if (!reportable || (!currencyDiffers && missingCents === 0)) continue;
    const order = orderNumber ? ` (order ${orderNumber})` : "";
    differences.push({
      key: `refund-total:${chargeId}`,
      kind: "amount_differs",
      stripeId: chargeId,
      orderNumber,
      ledgerCents,
      ledgerCurrency,
      stripeCents,
      stripeCurrency,
      detail: currencyDiffers
        ? `charge ${chargeId}${order} has its refunds in ${ledgerCurrency!.toUpperCase()} in the books but in ${stripeCurrency.toUpperCase()} in Stripe`
        : `charge ${chargeId}${order} has ${money(ledgerCents, stripeCurrency)} refunded in the books but ${money(stripeCents, stripeCurrency)} in Stripe`,
      fix: "compare the charge's refunds in the Stripe dashboard with the order's refunds on /admin; Stripe's are the money that moved",
    });
  }

  // Disputes: each one Stripe opened is in the books, for its amount; one Stripe closed as won
  // gave the money back, which the books record too.
  for (const dispute of stripe.disputes) {
    const [row] = rowsOf("dispute", dispute.id);
    const won = rowsOf("dispute_won", dispute.id);
    for (const entry of [row, ...won]) if (entry) matched.add(entry.id);
    for (const entry of rowsOf("dispute_lost", dispute.id)) matched.add(entry.id);
    if (dispute.created < sinceSeconds && !row) continue;
    const base = {
      stripeId: dispute.id,
      orderNumber: row?.orderNumber ?? null,
      stripeCents: dispute.amount,
      stripeCurrency: dispute.currency,
    };
    if (!row) {
      differences.push({
        ...base,
        key: `dispute-missing:${dispute.id}`,
        kind: "missing_from_ledger",
        ledgerCents: null,
        ledgerCurrency: null,
        detail: `dispute ${dispute.id} in Stripe (${money(dispute.amount, dispute.currency)} of charge ${stripeIdOf(dispute.charge)}, ${day(dispute.created)}) is not in the books`,
        fix: "resend its charge.dispute.created event from the Stripe dashboard (Developers → Webhooks), and answer the dispute there before its deadline",
      });
      continue;
    }
    if (row.amountCents !== dispute.amount || row.currency !== dispute.currency)
      differences.push({
        ...base,
        key: `dispute-amount:${dispute.id}`,
        kind: "amount_differs",
        ledgerCents: row.amountCents,
        ledgerCurrency: row.currency,
        detail: `dispute ${dispute.id} (order ${row.orderNumber}) is ${money(row.amountCents, row.currency)} in the books but ${money(dispute.amount, dispute.currency)} in Stripe`,
        fix: "check the dispute in the Stripe dashboard; Stripe's amount is what the bank took",
      });
    if (dispute.status === "won" && won.length === 0)
      differences.push({
        ...base,
        key: `dispute-won-missing:${dispute.id}`,
        kind: "missing_from_ledger",
        ledgerCents: null,
        ledgerCurrency: null,
        detail: `dispute ${dispute.id} (order ${row.orderNumber}) was won in Stripe, giving back ${money(dispute.amount, dispute.currency)}, which is not in the books`,
        fix: "resend its charge.dispute.closed event from the Stripe dashboard (Developers → Webhooks)",
      });
  }

  // Rows of the window no Stripe object accounts for.
  for (const row of ledger) {
    if (!inWindow(row) || matched.has(row.id) || row.amountCents === 0) continue;
    if (row.kind !== "charge" && row.kind !== "refund" && row.kind !== "dispute") continue;
    differences.push({
      key: `ledger-unknown:${row.id}`,
      kind: "missing_from_stripe",
      stripeId: row.providerReference,
      orderNumber: row.orderNumber,
      ledgerCents: row.amountCents,
      ledgerCurrency: row.currency,
      stripeCents: null,
      stripeCurrency: null,
      detail: `the books record a ${row.kind} of ${money(row.amountCents, row.currency)} (order ${row.orderNumber}, ${row.providerReference ?? "no Stripe reference"}, ${row.occurredAt.toISOString().slice(0, 10)}) that Stripe does not have`,
      fix: "look the reference up in the Stripe dashboard: a test-mode payment or one made on another Stripe account is not this account's money",
    });
  }
  return differences;
}

/** Compares the books with Stripe as of `now`; reads both, writes nothing (the doctor's check). */
export async function compareWithStripe(
  executor: Executor,
  config: StripeSettings,
  now = new Date(),
): Promise<Comparison> {
  const since = new Date(now.getTime() - RECONCILE_WINDOW_DAYS * DAY_MS);
  const stripe = await listStripeMoney(config, new Date(since.getTime() - MARGIN_MS));
  const invoiceOfIntent = invoicesByIntent(stripe.invoices);
  const references = new Set<string>();
  for (const charge of stripe.charges)
    for (const reference of referencesOf(charge, invoiceOfIntent)) references.add(reference);
  for (const refund of stripe.refunds) {
    const chargeId = stripeIdOf(refund.charge);
    if (chargeId) references.add(chargeId);
  }
  for (const dispute of stripe.disputes) references.add(dispute.id);
  const ledger = await ledgerRowsFor(executor, since, [...references]);
  return {
    since,
    stripeObjects: stripe.charges.length + stripe.refunds.length + stripe.disputes.length,
    ledgerRows: ledger.length,
    differences: differencesBetween(ledger, stripe, since),
  };
}

export type ReconcileServices = Pick<AppServices, "config" | "db" | "logger" | "mail">;

/**
 * The daily run: compares, stores each difference once (a new one opens a finding and is in
 * the one staff alert of this run; one found again is only marked seen) and resolves the
 * findings no longer found. Stripe is asked before the transaction opens.
 */
export async function reconcileWithStripe(
  services: ReconcileServices,
  now = new Date(),
): Promise<{ differences: number; newDifferences: number; resolved: number }> {
  const comparison = await compareWithStripe(services.db, services.config, now);
  const { opened, resolved } = await services.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('reconciliation'))`);
    const opened: Difference[] = [];
    for (const difference of comparison.differences) {
      const values = { ...difference, lastSeenAt: now };
      const [seen] = await tx
        .update(reconciliationFindings)
        .set(values)
        .where(and(eq(reconciliationFindings.key, difference.key), isNull(reconciliationFindings.resolvedAt)))
        .returning({ id: reconciliationFindings.id });
      if (seen) continue;
      const [row] = await tx
        .insert(reconciliationFindings)
        .values({ ...values, firstSeenAt: now })
        .onConflictDoNothing({
          target: reconciliationFindings.key,
          where: sql`${reconciliationFindings.resolvedAt} is null`,
        })
        .returning({ id: reconciliationFindings.id });
      if (row) opened.push(difference);
    }
    const keys = comparison.differences.map((difference) => difference.key);
    const resolved = await tx
      .update(reconciliationFindings)
      .set({ resolvedAt: now })
      .where(
        and(
          isNull(reconciliationFindings.resolvedAt),
          keys.length ? notInArray(reconciliationFindings.key, keys) : undefined,
        ),
      )
      .returning({ key: reconciliationFindings.key });
    await tx.insert(reconciliationRuns).values({
      ranAt: now,
      since: comparison.since,
      stripeObjects: comparison.stripeObjects,
      ledgerRows: comparison.ledgerRows,
      openFindings: comparison.differences.length,
    });
    if (opened.length) await alertLedgerDifferences(tx, services, opened, now);
    return { opened, resolved };
  });
  if (opened.length) {
    services.mail.wake();
    services.logger.error(
      {
        alert: "ledger-differences",
        differences: opened.map((difference) => difference.stripeId ?? difference.orderNumber),
        staffNotified: services.config.STAFF_ADMINS.length,
      },
      `staff alert: the books differ from Stripe in ${opened.length} new place(s)`,
    );
  }
  for (const { key } of resolved)
    services.logger.info({ finding: key }, "reconciliation: difference resolved");
  return {
    differences: comparison.differences.length,
    newDifferences: opened.length,
    resolved: resolved.length,
  };
}

export interface ReconciliationStatus {
  /** Demo stores take no Stripe money: nothing to reconcile. */
  live: boolean;
  lastRun: { ranAt: Date; since: Date } | null;
  open: ReconciliationFinding[];
}

/** What /admin shows: the open differences, newest first, and the last run. */
export async function reconciliationStatus(
  executor: Executor,
  config: Pick<Config, "NAIJALINK_MODE">,
): Promise<ReconciliationStatus> {
  if (config.NAIJALINK_MODE !== "live") return { live: false, lastRun: null, open: [] };
  const [lastRun] = await executor
    .select({ ranAt: reconciliationRuns.ranAt, since: reconciliationRuns.since })
    .from(reconciliationRuns)
    .orderBy(desc(reconciliationRuns.ranAt))
    .limit(1);
  const open = await executor
    .select()
    .from(reconciliationFindings)
    .where(isNull(reconciliationFindings.resolvedAt))
    .orderBy(desc(reconciliationFindings.firstSeenAt), reconciliationFindings.key)
    .limit(100);
  return { live: true, lastRun: lastRun ?? null, open };
}
