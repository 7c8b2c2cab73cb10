// A local stand-in of the few Stripe API calls the billing code makes, on a free loopback port.
import http from "node:http";
import type { AddressInfo } from "node:net";

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
  customer_details: { email: string | null } | null;
}

export interface StripeStandIn {
  base: string;
  creates: RecordedCreate[];
  sessions: Map<string, StandInSession>;
  retrieves: number;
  /** What Stripe reports once the buyer paid on its hosted page. */
  markPaid(sessionId: string, extra?: Partial<StandInSession>): StandInSession;
  close(): Promise<void>;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  let counter = 0;
  const standIn = {
    creates: [] as RecordedCreate[],
    sessions: new Map<string, StandInSession>(),
    retrieves: 0,
  };
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
        };
        standIn.sessions.set(id, session);
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
    base: `http://127.0.0.1:${port}`,
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
      return paid;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
