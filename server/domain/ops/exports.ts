import { stringify } from "csv-stringify/sync";
import { and, asc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import { findPlan } from "#app/lib/plans.ts";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, subscriptions } from "#server/db/schema/index.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { recordStaffAction, type StaffActor } from "./audit.ts";
import { DAY_MS } from "#server/domain/time.ts";

// CSV exports of orders and subscriptions for a date range (issue 24, decision 106): written as
// the rows are read, a page at a time, so an export of any size holds one page in memory.

export const EXPORT_KINDS = ["orders", "subscriptions"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Rows read per query; each page becomes one chunk of the response. */
export const EXPORT_PAGE_SIZE = 500;
/** Ten years: a bound on the dates typed, not on the rows (they are streamed). */
const MAX_RANGE_DAYS = 3660;

const startOf = (value: string) => new Date(`${value}T00:00:00Z`);
const day = (label: string) =>
  z.iso
    .date(`${label} must be a date (YYYY-MM-DD).`)
    // The format lets 2026-02-30 through (and Date would roll it over): a real day prints as itself.
    .refine(
      (value) => {
        const date = startOf(value);
        return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
      },
      { message: `${label} is not a day of the calendar.`, abort: true },
    )
    .transform(startOf);

/** POST /api/admin/export (a form): which rows, created from `from` to `to`, both UTC days included. */
export const exportRequestSchema = z
  .strictObject({
    kind: z.enum(EXPORT_KINDS, 'Choose "orders" or "subscriptions".'),
    from: day("From"),
    to: day("To"),
  })
  .refine((range) => range.from <= range.to, { message: "From must not be after To.", path: ["to"] })
  .refine((range) => range.to.getTime() - range.from.getTime() <= MAX_RANGE_DAYS * DAY_MS, {
    message: `Export at most ${MAX_RANGE_DAYS} days at once.`,
    path: ["to"],
  });

export type ExportRequest = z.infer<typeof exportRequestSchema>;

type Cell = string | number | boolean | null;

interface ExportSource {
  /** The CSV header, in column order. */
  columns: string[];
  createdAt: PgColumn;
  id: PgColumn;
  /** One page of rows created in [start, end) after the cursor, oldest first. */
  page(
    executor: Executor,
    where: SQL | undefined,
    limit: number,
  ): Promise<Array<{ cursor: Cursor; cells: Cell[] }>>;
}

/** The last row written: its creation time as PostgreSQL's exact text (microseconds) and its id. */
interface Cursor {
  at: string;
  id: string;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const amount = (cents: number) => (cents / 100).toFixed(2);
const planName = (planId: string) => findPlan(planId)?.name ?? planId;

const ORDERS: ExportSource = {
  columns: [
    "ordered_at",
    "order_status",
    "paid_at",
    "checkout_session_id",
    "order_number",
    "plan",
    "amount",
    "currency",
    "customer_name",
    "customer_email",
    "payment_reference",
    "subscription_id",
    "subscription_status",
  ],
  createdAt: checkoutSessions.createdAt,
  id: checkoutSessions.id,
  async page(executor, where, limit) {
    const rows = await executor
      .select({
        at: sql<string>`${checkoutSessions.createdAt}::text`,
        session: checkoutSessions,
        subscriptionId: subscriptions.id,
        subscriptionStatus: subscriptions.status,
        subscriptionEmail: subscriptions.customerEmail,
      })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(where)
      .orderBy(asc(checkoutSessions.createdAt), asc(checkoutSessions.id))
      .limit(limit);
    return rows.map(({ at, session, subscriptionId, subscriptionStatus, subscriptionEmail }) => ({
      cursor: { at, id: session.id },
      cells: [
        iso(session.createdAt),
        session.status,
        iso(session.paidAt),
        session.id,
        subscriptionId ? orderNumberOf(subscriptionId) : null,
        planName(session.planId),
        amount(session.paidAmountCents ?? session.amountCents),
        (session.paidCurrency ?? session.currency).toUpperCase(),
        session.customerName,
        subscriptionEmail ?? session.customerEmail,
        session.paymentReference,
        subscriptionId,
        subscriptionStatus,
      ],
    }));
  },
};

const SUBSCRIPTIONS: ExportSource = {
  columns: [
    "created_at",
    "order_number",
    "subscription_id",
    "plan",
    "status",
    "expires_at",
    "cancel_at_period_end",
    "device_limit",
    "customer_name",
    "customer_email",
    "stripe_subscription_id",
    "checkout_session_id",
  ],
  createdAt: subscriptions.createdAt,
  id: subscriptions.id,
  async page(executor, where, limit) {
    const rows = await executor
      .select({
        at: sql<string>`${subscriptions.createdAt}::text`,
        subscription: subscriptions,
        customerName: checkoutSessions.customerName,
      })
      .from(subscriptions)
      .leftJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .where(where)
      .orderBy(asc(subscriptions.createdAt), asc(subscriptions.id))
      .limit(limit);
    return rows.map(({ at, subscription, customerName }) => ({
      cursor: { at, id: subscription.id },
      cells: [
        iso(subscription.createdAt),
        orderNumberOf(subscription.id),
        subscription.id,
        planName(subscription.planId),
        subscription.status,
        iso(subscription.expiresAt),
        subscription.cancelAtPeriodEnd,
        subscription.deviceLimit,
        customerName,
        subscription.customerEmail,
        subscription.stripeSubscriptionId,
        subscription.checkoutSessionId,
      ],
    }));
  },
};

const SOURCES: Record<ExportKind, ExportSource> = { orders: ORDERS, subscriptions: SUBSCRIPTIONS };

/** The download's file name, e.g. `naijalink-orders-2026-11-01-to-2026-11-30.csv`. */
export function exportFileName(request: ExportRequest): string {
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);
  return `naijalink-${request.kind}-${dayOf(request.from)}-to-${dayOf(request.to)}.csv`;
}

/** Records who exported what, before the first row is read. */
export function recordExport(
  executor: Executor,
  staff: StaffActor,
  request: ExportRequest,
  now = new Date(),
) {
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);
  return recordStaffAction(
    executor,
    staff,
    {
      action: `${request.kind}.export`,
      targetType: "export",
      targetId: request.kind,
      details: { from: dayOf(request.from), to: dayOf(request.to) },
    },
    now,
  );
}

/**
 * The CSV of `request.kind` created in the range, oldest first: the header, then one chunk per
 * page. A page is read only when the reader asks for more (highWaterMark 0), so a slow download
 * never piles pages up in memory, and a cancelled one stops reading. Cells that a spreadsheet
 * would run as a formula are escaped (csv-stringify's `escape_formulas`).
 */
export function exportCsv(
  executor: Executor,
  request: ExportRequest,
  options: { pageSize?: number } = {},
): ReadableStream<Uint8Array> {
  const source = SOURCES[request.kind];
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  const range = and(
    gte(source.createdAt, request.from),
    lt(source.createdAt, new Date(request.to.getTime() + DAY_MS)),
  );
  const encoder = new TextEncoder();
  let cursor: Cursor | null = null;
  let first = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const after = cursor
          ? sql`(${source.createdAt}, ${source.id}) > (${cursor.at}::timestamptz, ${cursor.id})`
          : undefined;
        const rows = await source.page(executor, and(range, after), pageSize);
        const text = stringify(
          rows.map((row) => row.cells),
          {
            header: first,
            columns: source.columns,
            bom: first,
            escape_formulas: true,
            record_delimiter: "windows",
            cast: { boolean: (value) => (value ? "true" : "false") },
          },
        );
        first = false;
        if (text) controller.enqueue(encoder.encode(text));
        if (rows.length < pageSize) controller.close();
        else cursor = rows.at(-1)!.cursor;
      },
    },
    { highWaterMark: 0 },
  );
}
