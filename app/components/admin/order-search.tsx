import { useEffect, useState } from "react";
import { Form, Link, useFetcher } from "react-router";
import {
  displayStateOf,
  SUBSCRIPTION_STATE_BADGES,
  SubscriptionStatusBadge,
} from "#app/components/subscription-status-badge.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { Input } from "#app/components/ui/input.tsx";
import { ResponsiveTable, type Column } from "#app/components/ui/responsive-table.tsx";
import { formatShortDate, formatUsd } from "#core/format.ts";
// Type-only: erased from the browser bundle.
import type { OrderPage, OrderRow } from "#server/domain/ops/order-search.ts";
import { DemoBadge } from "./demo-badge.tsx";

/** How long typing pauses before the box searches. */
const DEBOUNCE_MS = 250;

/** What the loaders of /admin/orders and /admin/subscriptions answer, as far as the box reads it. */
type SearchPageData = {
  q: string;
  invalid: boolean;
  orders?: OrderPage | null;
  subscriptions?: OrderPage | null;
};

/**
 * The console's one search box (decision 076): a GET form to `action`, whose loader renders the
 * results. With JavaScript, typing loads the same address (debounced) through a fetcher and its
 * results replace those shown. `initial` is what the page's loader found for `query`.
 */
export function OrderSearch({
  action,
  results,
  query,
  hiddenFields = {},
  initial,
  emptyText = "No orders match.",
}: {
  action: string;
  /** Which list of `action`'s loader holds the results. */
  results: "orders" | "subscriptions";
  query: string;
  /** The page's other GET parameters (its status filter), kept by the form and the pager. */
  hiddenFields?: Record<string, string>;
  initial: OrderPage | null;
  emptyText?: string;
}) {
  const [typed, setTyped] = useState(query);
  const fetcher = useFetcher<SearchPageData>();
  const { load } = fetcher;
  // A page passes a new `hiddenFields` object on every render; its JSON changes only when they do.
  const fieldsKey = JSON.stringify(hiddenFields);

  useEffect(() => {
    const q = typed.trim();
    if (!q || q === query.trim()) return;
    const timer = setTimeout(() => {
      const fields = JSON.parse(fieldsKey) as Record<string, string>;
      void load(`${action}?${new URLSearchParams({ ...fields, q })}`);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed, query, fieldsKey, action, load]);

  const answer = typed.trim() && typed.trim() !== query.trim() ? fetcher.data : undefined;
  const found = answer && answer.q === typed.trim() ? { q: answer.q, page: answer[results] ?? null } : null;
  const problem = found && answer?.invalid ? "This search is not valid: type at most 200 characters." : null;
  const shownQuery = found?.q ?? query;
  const shown = found ? found.page : initial;
  const hrefFor = (page: number, cursor: Record<string, string> = {}) =>
    `${action}?${new URLSearchParams({ ...hiddenFields, ...(shownQuery ? { q: shownQuery } : {}), page: String(page), ...cursor })}`;

  return (
    <div className="mt-6">
      <Form
        method="get"
        action={action}
        role="search"
        className="flex flex-col gap-2 sm:flex-row sm:items-end"
      >
        {Object.entries(hiddenFields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <label className="grid flex-1 gap-1 text-sm">
          Search orders and subscriptions
          <Input
            name="q"
            type="search"
            value={typed}
            maxLength={200}
            onChange={(event) => setTyped(event.target.value)}
            placeholder="Order number, name, e-mail, session id, payment reference, key or IP"
            autoComplete="off"
          />
        </label>
        <Button type="submit">Search</Button>
      </Form>
      <div aria-live="polite" className="mt-2 text-sm text-muted-foreground">
        {problem ? (
          <p role="alert" className="text-destructive">
            {problem}
          </p>
        ) : shown && shownQuery ? (
          <p>
            {shown.totalIsAtLeast
              ? `More than ${shown.total.toLocaleString("en-GB")} results`
              : shown.total === 1
                ? "1 result"
                : `${shown.total} results`}{" "}
            for “{shownQuery}”
          </p>
        ) : null}
      </div>
      {shown ? (
        <>
          <OrderTable rows={shown.results} emptyText={emptyText} />
          <Pager
            page={shown.page}
            pages={shown.pages}
            hrefFor={hrefFor}
            next={shown.next}
            previous={shown.previous}
          />
        </>
      ) : null}
    </div>
  );
}

const ORDER_STATUS_LABELS: Record<OrderRow["orderStatus"], string> = {
  open: "Not paid",
  paid: "Paid",
  expired: "Expired",
  amount_mismatch: "Amount differs",
};

function SubscriptionCell({ row }: { row: OrderRow }) {
  if (!row.subscription) return <span className="text-muted-foreground">None</span>;
  const { subscription } = row;
  const state = displayStateOf(subscription);
  return (
    <>
      <Link
        className="underline"
        to={`/admin/subscriptions/${subscription.id}`}
        aria-label={`${SUBSCRIPTION_STATE_BADGES[state].label} subscription of ${row.customerEmail ?? "this order"}`}
      >
        <SubscriptionStatusBadge state={state} />
      </Link>
      <span className="block font-mono text-xs">{subscription.orderNumber}</span>
      {subscription.planId !== row.planId ? (
        <span className="block text-xs" data-testid="current-plan">
          Now on {subscription.planName}
        </span>
      ) : null}
      <span className="block text-xs text-muted-foreground">
        {subscription.liveDevices} live device{subscription.liveDevices === 1 ? "" : "s"}, until{" "}
        {formatShortDate(subscription.expiresAt)}
      </span>
    </>
  );
}

const ORDER_COLUMNS: Column<OrderRow>[] = [
  { header: "Ordered", cell: (row) => formatShortDate(row.createdAt), className: "whitespace-nowrap" },
  {
    header: "Customer",
    cell: (row) => (
      <>
        {row.customerName ? <span className="block">{row.customerName}</span> : null}
        {row.customerEmail ? <EmailAddress address={row.customerEmail} /> : "—"}
      </>
    ),
  },
  {
    header: "Plan",
    cell: (row) => (
      <>
        {row.planName}
        <DemoBadge provider={row.provider} />
        <span className="block text-xs text-muted-foreground">{formatUsd(row.amountCents)}</span>
      </>
    ),
  },
  {
    header: "Order",
    cell: (row) => (
      <>
        {ORDER_STATUS_LABELS[row.orderStatus]}
        <span className="block font-mono text-xs text-muted-foreground [overflow-wrap:anywhere]">
          {row.checkoutSessionId}
        </span>
      </>
    ),
  },
  { header: "Subscription", cell: (row) => <SubscriptionCell row={row} /> },
];

export function OrderTable({ rows, emptyText }: { rows: OrderRow[]; emptyText: string }) {
  if (rows.length === 0) return <p className="py-6 text-muted-foreground">{emptyText}</p>;
  return (
    <ResponsiveTable
      label="Results"
      rows={rows}
      rowKey={(row) => row.checkoutSessionId}
      columns={ORDER_COLUMNS}
      tableClassName="min-w-[44rem]"
      title={(row) => `${row.planName} · ${formatShortDate(row.createdAt)}`}
    />
  );
}

/**
 * Previous and Next carry the cursor of the row beside them (decision 131): the page they open is
 * read from that row on, however deep it is. Without one (an old link) the page number is used.
 */
export function Pager({
  page,
  pages,
  hrefFor,
  next,
  previous,
}: {
  page: number;
  pages: number;
  hrefFor: (page: number, cursor?: Record<string, string>) => string;
  next?: string | null;
  previous?: string | null;
}) {
  if (pages <= 1) return null;
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-4 text-sm">
      {page > 1 ? (
        <Link className="underline" to={hrefFor(page - 1, previous && page > 2 ? { before: previous } : {})}>
          Previous
        </Link>
      ) : null}
      <span>{`Page ${page} of ${pages}`}</span>
      {page < pages ? (
        <Link className="underline" to={hrefFor(page + 1, next ? { after: next } : {})}>
          Next
        </Link>
      ) : null}
    </nav>
  );
}
