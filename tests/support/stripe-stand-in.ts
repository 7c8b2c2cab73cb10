// A local stand-in of the few Stripe API calls the billing code makes, on a free loopback port.
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { expect } from "vitest";
import type { DatabaseKind } from "#server/db/client.ts";
import { createTestApp, type TestApp } from "./app.ts";

export interface RecordedCreate {
  params: URLSearchParams;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

export interface StandInSession {
  id: string;
  object: "checkout.session";
  url: string;
  mode: string;
  payment_status: "paid" | "unpaid";
  status: "open" | "complete";
  customer: string | null;
  subscription: string | null;
  payment_intent: string | null;
  customer_email: string | null;
  customer_details: { email: string | null; name?: string | null } | null;
  amount_total: number;
  currency: string;
  metadata: Record<string, string>;
}

export interface StandInCharge {
  id: string;
  object: "charge";
  customer: string | null;
  payment_intent: string | null;
  billing_details: { email: string | null };
}

export interface StandInSubscription {
  id: string;
  object: "subscription";
  customer: string;
  status: "active" | "past_due" | "canceled";
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  metadata: Record<string, string>;
  items: {
    object: "list";
    data: {
      id: string;
      object: "subscription_item";
      current_period_end: number;
      price: StandInPrice;
    }[];
  };
}

export interface StandInPrice {
  id: string;
  object: "price";
  product: string;
  unit_amount: number;
  currency: string;
  recurring: { interval: string } | null;
}

/** A Stripe object as the list endpoints answer it: at least its id and creation time (seconds). */
export type StandInListedObject = { id: string; created: number } & Record<string, unknown>;

export interface StandInListed {
  charges: StandInListedObject[];
  refunds: StandInListedObject[];
  disputes: StandInListedObject[];
  invoices: StandInListedObject[];
}

/** One page of `objects` as Stripe lists them: newest first, `created[gte]`, `limit`, `starting_after`. */
function listPage(objects: StandInListedObject[], query: URLSearchParams, path: string) {
  const gte = query.get("created[gte]");
  const sorted = objects
    .filter((object) => gte === null || object.created >= Number(gte))
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
  const after = query.get("starting_after");
  const start = after ? sorted.findIndex((object) => object.id === after) + 1 : 0;
  const limit = Math.min(100, Number(query.get("limit") ?? 10));
  const data = sorted.slice(start, start + limit);
  return { object: "list", url: path, has_more: start + limit < sorted.length, data };
}

/** The `expand[]` paths of a GET request (`expand[0]=data.charge`). */
const expanded = (query: URLSearchParams) =>
  [...query.entries()].filter(([name]) => /^expand\[\d*\]$/.test(name)).map(([, value]) => value);

export interface RecordedRequest {
  /** The object's id in the path, when the call names one. */
  id?: string;
  params: URLSearchParams;
  authorization: string | undefined;
}

export interface StripeStandIn {
  base: string;
  creates: RecordedCreate[];
  sessions: Map<string, StandInSession>;
  /** Charges `GET /v1/charges/:id` knows (a dispute names its charge, not the customer). */
  charges: Map<string, StandInCharge>;
  retrieves: number;
  /** Stripe subscriptions, one per paid subscription-mode session; `POST /v1/subscriptions/:id` updates them. */
  subscriptions: Map<string, StandInSubscription>;
  subscriptionUpdates: RecordedRequest[];
  /** `POST /v1/billing_portal/sessions` calls; each answers a fresh portal URL. */
  portalSessions: RecordedRequest[];
  /** `POST /v1/refunds` calls; a repeated idempotency key answers the same refund, as Stripe does. */
  refunds: RecordedCreate[];
  /** `DELETE /v1/subscriptions/:id` calls (cancel now). */
  subscriptionCancels: RecordedRequest[];
  /** What `GET /v1/webhook_endpoints` lists (`npm run doctor` looks for the app's). */
  webhookEndpoints: Array<{
    id: string;
    url: string;
    status: "enabled" | "disabled";
    enabled_events: string[];
  }>;
  /**
   * What the list calls reconciliation makes answer (`GET /v1/charges`, `/v1/refunds`,
   * `/v1/disputes`, `/v1/invoices` without a subscription): newest first, filtered by
   * `created[gte]`, paged by `limit` and `starting_after` as the SDK's auto-pagination asks.
   * A refund listed with `expand[]=data.charge` carries its charge from `listed.charges`.
   */
  listed: StandInListed;
  /** Each of those list calls, with its query. */
  listRequests: Array<{ path: string; query: URLSearchParams }>;
  /** Runs before a new refund is answered, e.g. to deliver its `charge.refunded` event first. */
  beforeRefundAnswer?: (refund: {
    charge: string;
    payment_intent: string;
    amount: number;
    currency: string;
  }) => Promise<void>;
  /** The payment intent of a Stripe subscription's paid invoice, as `GET /v1/invoices` reports it. */
  invoicePaymentIntentOf(subscriptionId: string): string;
  /**
   * A later invoice Stripe charged (a renewal, a plan change): `GET /v1/invoices/:id` names its
   * payment intent, which `POST /v1/refunds` may then refund up to `amount`. Answers the intent.
   */
  payInvoice(invoiceId: string, amount: number, currency?: string): string;
  /** What each payment intent's charge has had refunded so far, in cents. */
  refundedOf(paymentIntentId: string): number;
  /** What Stripe reports once the buyer paid on its hosted page. */
  markPaid(sessionId: string, extra?: Partial<StandInSession>): StandInSession;
  close(): Promise<void>;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  let counter = 0;
  const standIn = {
    creates: [] as RecordedCreate[],
    sessions: new Map<string, StandInSession>(),
    charges: new Map<string, StandInCharge>(),
    retrieves: 0,
    subscriptions: new Map<string, StandInSubscription>(),
    subscriptionUpdates: [] as RecordedRequest[],
    portalSessions: [] as RecordedRequest[],
    refunds: [] as RecordedCreate[],
    subscriptionCancels: [] as RecordedRequest[],
    webhookEndpoints: [] as StripeStandIn["webhookEndpoints"],
    beforeRefundAnswer: undefined as StripeStandIn["beforeRefundAnswer"],
    listed: { charges: [], refunds: [], disputes: [], invoices: [] } as StandInListed,
    listRequests: [] as StripeStandIn["listRequests"],
  };
  const refundsByKey = new Map<string, unknown>();
  /** Invoices paid after the first one: id → their payment intent, amount and currency. */
  const invoices = new Map<string, { paymentIntent: string; amount: number; currency: string }>();
  /** What each payment intent's charge has had refunded so far. */
  const refunded = new Map<string, number>();
  /** The billing interval each subscription-mode session asked for, for the subscription it starts. */
  const intervalOf = new Map<string, string>();
  const invoicePaymentIntentOf = (subscriptionId: string) => `pi_inv_${subscriptionId.slice(4)}`;
  /** What the session that paid with this payment intent (or its subscription's invoice) charged. */
  const chargedBy = (paymentIntentId: string): { amount_total: number; currency: string } | undefined =>
    [...standIn.sessions.values()].find(
      (session) =>
        session.payment_intent === paymentIntentId ||
        (session.subscription !== null && invoicePaymentIntentOf(session.subscription) === paymentIntentId),
    ) ??
    [...invoices.values()]
      .filter((invoice) => invoice.paymentIntent === paymentIntentId)
      .map((invoice) => ({ amount_total: invoice.amount, currency: invoice.currency }))[0];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json", "request-id": `req_${++counter}` });
        response.end(JSON.stringify(body));
      };
      const url = new URL(request.url ?? "/", "http://stand-in");
      if (request.method === "POST" && url.pathname === "/v1/checkout/sessions") {
        const params = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        standIn.creates.push({
          params,
          idempotencyKey: request.headers["idempotency-key"] as string | undefined,
          authorization: request.headers.authorization,
        });
        const id = `cs_test_standin_${++counter}_${Math.random().toString(36).slice(2, 10)}`;
        const session: StandInSession = {
          id,
          object: "checkout.session",
          url: `https://checkout.stripe.test/c/pay/${id}`,
          mode: params.get("mode") ?? "payment",
          payment_status: "unpaid",
          status: "open",
          customer: null,
          subscription: null,
          payment_intent: null,
          customer_email: params.get("customer_email"),
          customer_details: null,
          // Stripe totals the line items at creation; the billing code creates exactly one.
          amount_total:
            Number(params.get("line_items[0][price_data][unit_amount]")) *
            Number(params.get("line_items[0][quantity]") ?? 1),
          currency: params.get("line_items[0][price_data][currency]") ?? "usd",
          metadata: params.get("metadata[planId]") ? { planId: params.get("metadata[planId]")! } : {},
        };
        standIn.sessions.set(id, session);
        intervalOf.set(id, params.get("line_items[0][price_data][recurring][interval]") ?? "month");
        return send(200, session);
      }
      const match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && match) {
        standIn.retrieves++;
        const session = standIn.sessions.get(decodeURIComponent(match[1]!));
        if (!session) {
          return send(404, { error: { type: "invalid_request_error", message: "No such checkout.session" } });
        }
        return send(200, session);
      }
      const charge = /^\/v1\/charges\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && charge) {
        const known = standIn.charges.get(decodeURIComponent(charge[1]!));
        if (!known) return send(404, { error: { type: "invalid_request_error", message: "No such charge" } });
        return send(200, known);
      }
      const form = () => new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && subscriptionPath) {
        const known = standIn.subscriptions.get(decodeURIComponent(subscriptionPath[1]!));
        if (!known) {
          return send(404, { error: { type: "invalid_request_error", message: "No such subscription" } });
        }
        return send(200, known);
      }
      if (request.method === "POST" && subscriptionPath) {
        const id = decodeURIComponent(subscriptionPath[1]!);
        const params = form();
        standIn.subscriptionUpdates.push({ id, params, authorization: request.headers.authorization });
        const known = standIn.subscriptions.get(id);
        if (!known) {
          return send(404, { error: { type: "invalid_request_error", message: "No such subscription" } });
        }
        const cancel = params.get("cancel_at_period_end");
        const trialEnd = params.get("trial_end");
        let updated: StandInSubscription =
          cancel === null ? known : { ...known, cancel_at_period_end: cancel === "true" };
        if (trialEnd !== null) {
          const periodEnd = Number(trialEnd);
          updated = {
            ...updated,
            items: {
              ...updated.items,
              data: updated.items.data.map((item) => ({ ...item, current_period_end: periodEnd })),
            },
          };
        }
        const itemId = params.get("items[0][id]");
        if (itemId !== null) {
          // A price change: the item takes an inline price on its product, as Stripe creates it.
          const amount = Number(params.get("items[0][price_data][unit_amount]"));
          const interval = params.get("items[0][price_data][recurring][interval]");
          const item = updated.items.data.find((entry) => entry.id === itemId);
          if (!item) return send(400, { error: { type: "invalid_request_error", message: "No such item" } });
          const price: StandInPrice = {
            id: `price_standin_${++counter}`,
            object: "price",
            product: params.get("items[0][price_data][product]") ?? "",
            unit_amount: amount,
            currency: params.get("items[0][price_data][currency]") ?? "usd",
            recurring: interval ? { interval } : null,
          };
          const periodEnd =
            interval !== item.price.recurring?.interval
              ? Math.floor(Date.now() / 1000) + (interval === "year" ? 365 : 30) * 86_400
              : item.current_period_end;
          updated = {
            ...updated,
            items: {
              ...updated.items,
              data: updated.items.data.map((entry) =>
                entry.id === itemId ? { ...entry, price, current_period_end: periodEnd } : entry,
              ),
            },
          };
        }
        const planId = params.get("metadata[planId]");
        if (planId !== null) updated = { ...updated, metadata: { ...updated.metadata, planId } };
        standIn.subscriptions.set(id, updated);
        return send(200, updated);
      }
      if (request.method === "DELETE" && subscriptionPath) {
        const id = decodeURIComponent(subscriptionPath[1]!);
        standIn.subscriptionCancels.push({
          id,
          params: form(),
          authorization: request.headers.authorization,
        });
        const known = standIn.subscriptions.get(id);
        if (!known) {
          return send(404, { error: { type: "invalid_request_error", message: "No such subscription" } });
        }
        const canceled: StandInSubscription = { ...known, status: "canceled" };
        standIn.subscriptions.set(id, canceled);
        return send(200, canceled);
      }
      const listing = /^\/v1\/(charges|refunds|disputes|invoices)$/.exec(url.pathname);
      if (request.method === "GET" && listing && !url.searchParams.has("subscription")) {
        standIn.listRequests.push({ path: url.pathname, query: url.searchParams });
        const kind = listing[1] as keyof StandInListed;
        const page = listPage(standIn.listed[kind], url.searchParams, url.pathname);
        if (kind === "refunds" && expanded(url.searchParams).includes("data.charge"))
          page.data = page.data.map((refund) => ({
            ...refund,
            charge: standIn.listed.charges.find((known) => known.id === refund.charge) ?? refund.charge,
          }));
        return send(200, page);
      }
      if (request.method === "GET" && url.pathname === "/v1/invoices") {
        const subscription = url.searchParams.get("subscription") ?? "";
        const known = standIn.subscriptions.has(subscription);
        const payment = { type: "payment_intent", payment_intent: invoicePaymentIntentOf(subscription) };
        return send(200, {
          object: "list",
          has_more: false,
          url: "/v1/invoices",
          data: known
            ? [
                {
                  id: `in_${subscription.slice(4)}`,
                  object: "invoice",
                  status: "paid",
                  payments: {
                    object: "list",
                    has_more: false,
                    data: [{ id: `inpay_${subscription.slice(4)}`, object: "invoice_payment", payment }],
                  },
                },
              ]
            : [],
        });
      }
      const invoicePath = /^\/v1\/invoices\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && invoicePath) {
        const id = decodeURIComponent(invoicePath[1]!);
        const known = invoices.get(id);
        if (!known)
          return send(404, { error: { type: "invalid_request_error", message: "No such invoice" } });
        const payment = { type: "payment_intent", payment_intent: known.paymentIntent };
        return send(200, {
          id,
          object: "invoice",
          status: "paid",
          amount_paid: known.amount,
          currency: known.currency,
          payments: {
            object: "list",
            has_more: false,
            data: [{ id: `inpay_${id.slice(3)}`, object: "invoice_payment", payment }],
          },
        });
      }
      if (request.method === "POST" && url.pathname === "/v1/refunds") {
        const params = form();
        const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
        standIn.refunds.push({ params, idempotencyKey, authorization: request.headers.authorization });
        const existing = idempotencyKey ? refundsByKey.get(idempotencyKey) : undefined;
        if (existing) return send(200, existing);
        const paymentIntent = params.get("payment_intent") ?? "";
        const session = chargedBy(paymentIntent);
        if (!session) {
          return send(404, { error: { type: "invalid_request_error", message: "No such payment_intent" } });
        }
        // As Stripe: `amount` defaults to what is left of the charge, and no refund exceeds it.
        const before = refunded.get(paymentIntent) ?? 0;
        const amount = params.has("amount") ? Number(params.get("amount")) : session.amount_total - before;
        if (!(amount > 0) || before + amount > session.amount_total) {
          return send(400, {
            error: {
              type: "invalid_request_error",
              message: `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge`,
            },
          });
        }
        refunded.set(paymentIntent, before + amount);
        const chargeId = `ch_${paymentIntent.slice(3)}`;
        const chargeObject = {
          id: chargeId,
          object: "charge",
          amount: session.amount_total,
          amount_refunded: before + amount,
          refunded: before + amount === session.amount_total,
          currency: session.currency,
          payment_intent: paymentIntent,
        };
        const expandCharge =
          params.getAll("expand[]").includes("charge") || params.get("expand[0]") === "charge";
        const refund = {
          id: `re_standin_${++counter}`,
          object: "refund",
          status: "succeeded",
          payment_intent: paymentIntent,
          charge: expandCharge ? chargeObject : chargeId,
          amount,
          currency: session.currency,
        };
        if (idempotencyKey) refundsByKey.set(idempotencyKey, refund);
        const hook = standIn.beforeRefundAnswer;
        if (!hook) return send(200, refund);
        hook({ ...refund, charge: chargeId }).then(
          () => send(200, refund),
          (error: unknown) => send(500, { error: { type: "api_error", message: String(error) } }),
        );
        return;
      }
      if (request.method === "GET" && url.pathname === "/v1/webhook_endpoints") {
        // A key Stripe has rolled: the stand-in treats any key ending in "_revoked" so.
        if (/_revoked$/.test(request.headers.authorization ?? ""))
          return send(401, {
            error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****oked" },
          });
        return send(200, {
          object: "list",
          url: "/v1/webhook_endpoints",
          has_more: false,
          data: standIn.webhookEndpoints.map((endpoint) => ({ object: "webhook_endpoint", ...endpoint })),
        });
      }
      if (request.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
        const params = form();
        standIn.portalSessions.push({ params, authorization: request.headers.authorization });
        const id = `bps_standin_${++counter}`;
        return send(200, {
          id,
          object: "billing_portal.session",
          customer: params.get("customer"),
          return_url: params.get("return_url"),
          url: `https://billing.stripe.test/p/session/${id}`,
        });
      }
      send(404, {
        error: { type: "invalid_request_error", message: `Unrecognized request URL (${url.pathname})` },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...standIn,
    get retrieves() {
      return standIn.retrieves;
    },
    get beforeRefundAnswer() {
      return standIn.beforeRefundAnswer;
    },
    set beforeRefundAnswer(hook) {
      standIn.beforeRefundAnswer = hook;
    },
    base: `http://127.0.0.1:${port}`,
    invoicePaymentIntentOf,
    payInvoice(invoiceId, amount, currency = "usd") {
      const paymentIntent = `pi_${invoiceId.replace(/^in_/, "")}`;
      invoices.set(invoiceId, { paymentIntent, amount, currency });
      return paymentIntent;
    },
    refundedOf: (paymentIntentId) => refunded.get(paymentIntentId) ?? 0,
    markPaid(sessionId, extra = {}) {
      const session = standIn.sessions.get(sessionId);
      if (!session) throw new Error(`stand-in has no session ${sessionId}`);
      const paid: StandInSession = {
        ...session,
        payment_status: "paid",
        status: "complete",
        customer: `cus_${sessionId.slice(-8)}`,
        subscription: session.mode === "subscription" ? `sub_${sessionId.slice(-8)}` : null,
        payment_intent: session.mode === "payment" ? `pi_${sessionId.slice(-8)}` : null,
        customer_details: { email: session.customer_email ?? "payer@example.com" },
        ...extra,
      };
      standIn.sessions.set(sessionId, paid);
      if (paid.subscription && paid.customer && !standIn.subscriptions.has(paid.subscription)) {
        standIn.subscriptions.set(paid.subscription, {
          id: paid.subscription,
          object: "subscription",
          customer: paid.customer,
          status: "active",
          cancel_at_period_end: false,
          cancel_at: null,
          metadata: paid.metadata,
          items: {
            object: "list",
            data: [
              {
                id: `si_${sessionId.slice(-8)}`,
                object: "subscription_item",
                current_period_end:
                  Math.floor(Date.now() / 1000) + (intervalOf.get(sessionId) === "year" ? 365 : 30) * 86_400,
                price: {
                  id: `price_${sessionId.slice(-8)}`,
                  object: "price",
                  product: `prod_${sessionId.slice(-8)}`,
                  unit_amount: paid.amount_total,
                  currency: paid.currency,
                  recurring: { interval: intervalOf.get(sessionId) ?? "month" },
                },
              },
            ],
          },
        });
      }
      return paid;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const STAND_IN_WEBHOOK_SECRET = "whsec_test_naijalink_standin_events";
const signer = new Stripe("sk_test_unused");
let eventCounter = 0;

/** A webhook delivery as Stripe signs it; the id defaults to a fresh one (a replay passes the same). */
export function signedStripeEvent(
  type: string,
  object: Record<string, unknown>,
  id = `evt_${++eventCounter}_${Date.now()}`,
) {
  const payload = JSON.stringify({ id, object: "event", type, api_version: "2025-01-01", data: { object } });
  return {
    id,
    payload,
    signature: signer.webhooks.generateTestHeaderString({ payload, secret: STAND_IN_WEBHOOK_SECRET }),
  };
}

/** Signs an event and posts it to the app's webhook, which must accept it (200). */
export async function deliverStripeEvent(app: TestApp, type: string, object: object, id?: string) {
  const event = signedStripeEvent(type, { ...object }, id);
  const response = await app.request("/api/webhooks/stripe", {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": event.signature },
    body: event.payload,
  });
  expect(response.status).toBe(200);
  return event;
}

/** The secret key a `createStripeTestApp` app sends; the stand-in records it on each call. */
export const STAND_IN_SECRET_KEY = "sk_test_naijalink_standin";

/**
 * A test app in Stripe mode whose SDK talks to a fresh stand-in, with the stand-in's webhook
 * secret; `env` adds or overrides settings. Close both when done.
 */
export async function createStripeTestApp(
  options: { kind?: DatabaseKind; env?: Record<string, string> } = {},
): Promise<{ app: TestApp; standIn: StripeStandIn }> {
  const standIn = await startStripeStandIn();
  const app = await createTestApp({
    kind: options.kind,
    env: {
      STRIPE_SECRET_KEY: STAND_IN_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: STAND_IN_WEBHOOK_SECRET,
      STRIPE_API_BASE: standIn.base,
      ...options.env,
    },
  });
  return { app, standIn };
}
