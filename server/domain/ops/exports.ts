import { stringify } from "csv-stringify/sync";
import { and, gte, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { recordStaffAction, type StaffActor } from "./audit.ts";
import { DAY_MS } from "#server/domain/time.ts";
import { EXPORT_KINDS, SOURCES, type Cursor } from "./export-sources.ts";

// CSV exports of orders and subscriptions for a date range (issue 24, decision 106): written as
// the rows are read, a page at a time, so an export of any size holds one page in memory.

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
    kind: z.enum(EXPORT_KINDS, 'Choose "orders", "subscriptions" or "ledger".'),
    from: day("From"),
    to: day("To"),
  })
  .refine((range) => range.from <= range.to, { message: "From must not be after To.", path: ["to"] })
  .refine((range) => range.to.getTime() - range.from.getTime() <= MAX_RANGE_DAYS * DAY_MS, {
    message: `Export at most ${MAX_RANGE_DAYS} days at once.`,
    path: ["to"],
  });

export type ExportRequest = z.infer<typeof exportRequestSchema>;

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
 * Invisible characters a cell may start with: format characters (zero-width space and joiners,
 * the byte-order mark, direction marks), spaces of every kind, the fillers that render blank, and
 * the ASCII controls but tab and CR, which are formula triggers themselves.
 */
const LEADING_INVISIBLES =
  /^(?:(?![\t\r])\p{Cc}|[\p{Cf}\p{Z}\u115f\u1160\u3164\uffa0]|\u034f|\u17b4|\u17b5)+/u;

/**
 * A text cell without its leading invisible characters. A spreadsheet skips them and runs what
 * follows (`\u200b=HYPERLINK(…)`), but csv-stringify's `escape_formulas` looks at the first
 * character only: with them gone, a formula's `=`, `+`, `-`, `@`, tab or CR comes first and is
 * escaped.
 */
export const withoutLeadingInvisibles = (text: string) => text.replace(LEADING_INVISIBLES, "");

/** Rows as CSV text (CRLF records), with the header and a byte-order mark when `first`. */
export function csvText(rows: unknown[][], columns: string[], first: boolean): string {
  return stringify(rows, {
    header: first,
    columns,
    bom: first,
    escape_formulas: true,
    record_delimiter: "windows",
    cast: {
      boolean: (value) => (value ? "true" : "false"),
      string: withoutLeadingInvisibles,
    },
  });
}

/**
 * The CSV of `request.kind` created in the range, oldest first: the header, then one chunk per
 * page. A page is read only when the reader asks for more (highWaterMark 0), so a slow download
 * never piles pages up in memory, and a cancelled one stops reading. Cells that a spreadsheet
 * would run as a formula are escaped (csv-stringify's `escape_formulas`), after their leading
 * invisible characters are dropped.
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
        const text = csvText(
          rows.map((row) => row.cells),
          source.columns,
          first,
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
