import { and, count, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
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
  total: number;
  page: number;
  pageSize: number;
  pages: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  const bySubscription = [
    ilike(subscriptions.customerEmail, email),
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
          ilike(checkoutSessions.customerEmail, email),
          nameHasWords(q),
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
  ];
  const where = and(...conditions);
  const liveDevices = executor
    .select({ value: count() })
    .from(devices)
    .where(and(eq(devices.subscriptionId, subscriptions.id), isNull(devices.revokedAt)));
  const [rows, [total]] = await Promise.all([
    executor
      .select({
        session: checkoutSessions,
        subscription: subscriptions,
        liveDevices: sql<number>`(${liveDevices})`.mapWith(Number),
      })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(where)
      .orderBy(desc(checkoutSessions.createdAt), desc(checkoutSessions.id))
      .limit(ORDERS_PER_PAGE)
      .offset((query.page - 1) * ORDERS_PER_PAGE),
    executor
      .select({ value: count() })
      .from(checkoutSessions)
      .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
      .where(where),
  ]);
  const totalCount = Number(total?.value ?? 0);
  return {
    results: rows.map(({ session, subscription, liveDevices: live }) => ({
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
        liveDevices: live,
      },
    })),
    total: totalCount,
    page: query.page,
    pageSize: ORDERS_PER_PAGE,
    pages: Math.max(1, Math.ceil(totalCount / ORDERS_PER_PAGE)),
  };
}
