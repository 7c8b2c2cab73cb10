import { and, asc, count, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { union } from "drizzle-orm/pg-core";
import { z } from "zod";
import { canonicalIpAddress } from "#agent/node-api.ts";
import { findPlan } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import {
  CHECKOUT_STATUSES,
  checkoutSessions,
  devices,
  ledgerEntries,
  SUBSCRIPTION_STATUSES,
  subscriptions,
} from "#server/db/schema/index.ts";
import { orderNumberOf, parseOrderNumber } from "#server/domain/billing/ledger.ts";

// Finding orders (checkout sessions) and the subscriptions they became, for the staff console:
// one query shape for the search box, /admin/orders and /admin/subscriptions.

export const ORDERS_PER_PAGE = 20;
/** Deep pages are refused rather than scanned: narrow the search instead. */
const MAX_PAGE = 500;

/**
 * Where a page starts (decision 131): the order next to it, as its creation time in PostgreSQL's
 * exact text (microseconds) and its session id. The pager's Next and Previous links carry one, so
 * a deep page is read from the index at that point instead of skipping every page before it.
 */
const pageCursor = z
  .string()
  .max(300)
  .regex(
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?\|.{1,255}$/,
    "Not a page of this list.",
  );

const searchText = z.string().trim().max(200, "Search for at most 200 characters.");
const pageNumber = z.number().int().min(1).max(MAX_PAGE).default(1);

/** /admin/orders and /admin/subscriptions: an optional search, a status filter, a page. */
export const orderListSchema = z.object({
  q: searchText.optional(),
  orderStatus: z.enum(CHECKOUT_STATUSES).optional(),
  subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES).optional(),
  /** Only orders that became a subscription (the subscriptions list). */
  withSubscription: z.boolean().default(false),
  page: pageNumber,
  /** The page after this order (the Next link) … */
  after: pageCursor.optional(),
  /** … or the page before it (the Previous link). */
  before: pageCursor.optional(),
});

/**
 * POST /api/admin/search: one box for order number, name, e-mail, session id, payment reference,
 * device key or IP,
 * within the list's filters when the box sits on a filtered list.
 */
export const orderSearchSchema = orderListSchema.extend({
  q: searchText.min(1, "Type something to search for."),
});

export type OrderListQuery = z.input<typeof orderListSchema>;

export interface OrderRow {
  checkoutSessionId: string;
  orderStatus: (typeof CHECKOUT_STATUSES)[number];
  provider: "stripe" | "test";
  planId: string;
  planName: string;
  customerEmail: string | null;
  customerName: string | null;
  amountCents: number;
  createdAt: string;
  paidAt: string | null;
  paymentReference: string | null;
  subscription: {
    id: string;
    /** As printed on the receipt (`FC8D-F51C-7403`). */
    orderNumber: string;
    planId: string;
    planName: string;
    status: (typeof SUBSCRIPTION_STATUSES)[number];
    expiresAt: string;
    cancelAtPeriodEnd: boolean;
    liveDevices: number;
  } | null;
}

export interface OrderPage {
  results: OrderRow[];
  /** How many match, counted up to the 10,000 that 500 pages show… */
  total: number;
  /** …and true when more match than that. */
  totalIsAtLeast: boolean;
  page: number;
  pageSize: number;
  pages: number;
  /** The cursors of the next and previous pages (`after`, `before`), null when there is none. */
  next: string | null;
  previous: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A provider's id (session, payment, subscription, customer) or a WireGuard key: never part of a name or address. */
const IDENTIFIER = /^(?:cs|pi|sub|cus|ch|in|re|dp)_\S+$|^[A-Za-z0-9+/]{43}=$/;
const WHOLE_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Counted at most this far (decision 131): beyond it there are no pages to show anyway. */
const COUNT_LIMIT = MAX_PAGE * ORDERS_PER_PAGE;

/** `text` for a LIKE pattern: its wildcards match themselves. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** Every word of `q` appears in the buyer's name, in any case and order ("obi ada" finds "Ada Obi"). */
function nameHasWords(q: string): SQL | undefined {
  const words = q.split(/\s+/).filter(Boolean).slice(0, 8);
  return and(...words.map((word) => ilike(checkoutSessions.customerName, `%${likeLiteral(word)}%`)));
}

/**
 * The checkout sessions `q` finds, as a union of lookups each served by its own column: exact
 * for ids, keys and addresses (an IP is compared in canonical form, so `fd66:0::2` finds
 * `fd66::2`), any order number the ledger printed (its index), case-insensitive "contains" for e-mail and for each word of the name. Every value is
 * a bound parameter.
 */
function sessionsMatching(executor: Executor, q: string) {
  const ip = canonicalIpAddress(q);
  const byDevice = (condition: SQL) =>
    executor
      .select({ id: subscriptions.checkoutSessionId })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(condition);
  if (ip) return byDevice(or(eq(devices.ipv4, ip), eq(devices.ipv6, ip))!);

  const email = `%${likeLiteral(q)}%`;
  const orderNumber = parseOrderNumber(q);
  // Decision 131: what is plainly an id, a key or an order number is looked up by its index alone,
  // and a whole address by the addresses' index; other text is searched for anywhere in the
  // addresses and names (which reads those columns whole).
  const exactOnly = Boolean(orderNumber) || UUID.test(q) || IDENTIFIER.test(q);
  const sameAddress = (column: typeof subscriptions.customerEmail | typeof checkoutSessions.customerEmail) =>
    sql`lower(${column}) = lower(${q})`;
  const byText = (column: typeof subscriptions.customerEmail | typeof checkoutSessions.customerEmail) =>
    exactOnly ? [] : WHOLE_ADDRESS.test(q) ? [sameAddress(column)] : [ilike(column, email)];
  const bySubscription = [
    ...byText(subscriptions.customerEmail),
    eq(subscriptions.stripeSubscriptionId, q),
    eq(subscriptions.stripeCustomerId, q),
    ...(UUID.test(q) ? [eq(subscriptions.id, q)] : []),
  ];
  return union(
    executor
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(
        or(
          eq(checkoutSessions.id, q),
          eq(checkoutSessions.paymentReference, q),
          ...byText(checkoutSessions.customerEmail),
          exactOnly || WHOLE_ADDRESS.test(q) ? undefined : nameHasWords(q),
        ),
      ),
    executor
      .select({ id: subscriptions.checkoutSessionId })
      .from(subscriptions)
      .where(or(...bySubscription)),
    byDevice(eq(devices.publicKey, q)),
    // Any order number a receipt printed: a purchase, a renewal, a plan change, a pass extension.
    executor
      .select({ id: subscriptions.checkoutSessionId })
      .from(ledgerEntries)
      .innerJoin(subscriptions, eq(subscriptions.id, ledgerEntries.subscriptionId))
      .where(orderNumber ? eq(ledgerEntries.orderNumber, orderNumber) : sql`false`),
  );
}

/** Orders newest first, `ORDERS_PER_PAGE` a page, with the total that match. */
export async function findOrders(executor: Executor, input: OrderListQuery): Promise<OrderPage> {
  const query = orderListSchema.parse(input);
  const conditions: (SQL | undefined)[] = [
    query.q ? inArray(checkoutSessions.id, sessionsMatching(executor, query.q)) : undefined,
    query.orderStatus ? eq(checkoutSessions.status, query.orderStatus) : undefined,
    query.subscriptionStatus ? eq(subscriptions.status, query.subscriptionStatus) : undefined,
    query.withSubscription ? sql`${subscriptions.id} is not null` : undefined,
    // Only orders that became a subscription: the flag's partial index walks just those, newest
    // first (decision 138), where the orders' own index passes every unpaid one; the join decides.
    query.withSubscription || query.subscriptionStatus ? sql`${checkoutSessions.hasSubscription}` : undefined,
  ];
  const where = and(...conditions);
  const cursor = query.after ?? query.before;
  const [cursorAt, cursorId] = cursor
    ? [cursor.slice(0, cursor.indexOf("|")), cursor.slice(cursor.indexOf("|") + 1)]
    : [];
  const position = sql`(${checkoutSessions.createdAt}, ${checkoutSessions.id})`;
  const from = sql`(${cursorAt ?? null}::timestamptz, ${cursorId ?? null}::text)`;
  // Newest first; a Previous link reads the page before the cursor oldest first and turns it round.
  const backwards = Boolean(query.before) && !query.after;
  const order = backwards
    ? [asc(checkoutSessions.createdAt), asc(checkoutSessions.id)]
    : [desc(checkoutSessions.createdAt), desc(checkoutSessions.id)];
  const [rows, [total]] = await Promise.all([
    executor
      .select({
        session: checkoutSessions,
        subscription: subscriptions,
        position: sql<string>`${checkoutSessions.createdAt}::text || '|' || ${checkoutSessions.id}`,
      })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(
        and(
          where,
          query.after ? sql`${position} < ${from}` : backwards ? sql`${position} > ${from}` : undefined,
        ),
      )
      .orderBy(...order)
      .limit(ORDERS_PER_PAGE + 1)
      .offset(cursor ? 0 : (query.page - 1) * ORDERS_PER_PAGE),
    executor.select({ value: count() }).from(
      executor
        .select({ one: sql`1`.as("one") })
        .from(checkoutSessions)
        .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
        .where(where)
        // In the list's order, so the count walks the same index and stops where the pages do.
        .orderBy(desc(checkoutSessions.createdAt), desc(checkoutSessions.id))
        .limit(COUNT_LIMIT + 1)
        .as("matching"),
    ),
  ]);
  // Live devices of the page's subscriptions only (decision 138): counted in the page query, they
  // were counted for every row a deep page's offset skips.
  const pageSubscriptions = rows.flatMap((row) => (row.subscription ? [row.subscription.id] : []));
  const liveDevices = new Map(
    pageSubscriptions.length === 0
      ? []
      : (
          await executor
            .select({ subscriptionId: devices.subscriptionId, value: count() })
            .from(devices)
            .where(and(inArray(devices.subscriptionId, pageSubscriptions), isNull(devices.revokedAt)))
            .groupBy(devices.subscriptionId)
        ).map((row) => [row.subscriptionId, Number(row.value)]),
  );
  const counted = Number(total?.value ?? 0);
  const totalCount = Math.min(counted, COUNT_LIMIT);
  // One row more than a page says whether there is a page beyond it (in the direction read).
  const more = rows.length > ORDERS_PER_PAGE;
  const shown = backwards ? rows.slice(0, ORDERS_PER_PAGE).reverse() : rows.slice(0, ORDERS_PER_PAGE);
  const hasNext = backwards ? true : more;
  const hasPrevious = backwards ? more : query.page > 1;
  return {
    results: shown.map(({ session, subscription }) => ({
      checkoutSessionId: session.id,
      orderStatus: session.status,
      provider: session.provider,
      planId: session.planId,
      planName: findPlan(session.planId)?.name ?? session.planId,
      customerEmail: subscription?.customerEmail ?? session.customerEmail,
      customerName: session.customerName,
      amountCents: session.paidAmountCents ?? session.amountCents,
      createdAt: session.createdAt.toISOString(),
      paidAt: session.paidAt?.toISOString() ?? null,
      paymentReference: session.paymentReference,
      subscription: subscription && {
        id: subscription.id,
        orderNumber: orderNumberOf(subscription.id),
        /** Its plan now: a plan change moves it off the plan this order bought. */
        planId: subscription.planId,
        planName: findPlan(subscription.planId)?.name ?? subscription.planId,
        status: subscription.status,
        expiresAt: subscription.expiresAt.toISOString(),
        cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
        liveDevices: liveDevices.get(subscription.id) ?? 0,
      },
    })),
    total: totalCount,
    totalIsAtLeast: counted > COUNT_LIMIT,
    page: query.page,
    pageSize: ORDERS_PER_PAGE,
    pages: Math.max(1, Math.ceil(totalCount / ORDERS_PER_PAGE)),
    next: hasNext && shown.length > 0 ? shown.at(-1)!.position : null,
    previous: hasPrevious && shown.length > 0 ? shown[0]!.position : null,
  };
}
