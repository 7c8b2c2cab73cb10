// What every request goes through before a route sees it (issue 25): its target and its body's
// declared type are checked, then the route's credential (for the routes that take one instead
// of a session) before a byte of the body is read, then the body against its limit, then the
// body against the input rule. The real server applies it to Node's requests (body-limit.ts);
// the in-process handler tests use (app.ts) applies it to Fetch requests.
import { isStripeSignatureShaped } from "#server/domain/billing/webhook.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { authenticateNode } from "#server/domain/vpn/nodes.ts";
import type { AppServices } from "#server/services.ts";
import { ApiError, badRequest } from "./api.ts";
import { bodyRefusal, contentTypeRefusal, targetRefusal } from "./input-rule.ts";
import { nodeUnauthorized } from "./node-auth.ts";

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A node's status report lists up to 100,000 peers. */
export const NODE_STATUS_LIMIT_BYTES = 16 * 1024 * 1024;
export const WEBHOOK_LIMIT_BYTES = 512 * 1024;

export interface IntakeRequest {
  method: string;
  /** Path and query, as the request line gave them. */
  target: string;
  header(name: string): string | undefined;
  hasBody: boolean;
}

export interface Intake {
  /** Before any byte of the body is read: the refusal, or how many bytes the body may have. */
  admit(request: IntakeRequest): Promise<ApiError | { limitBytes: number }>;
  /** Once the body is read: the refusal, or undefined. */
  check(request: IntakeRequest, body: Uint8Array): ApiError | undefined;
}

type Gate = (
  services: Pick<AppServices, "db" | "config">,
  request: IntakeRequest,
) => Promise<ApiError | { limitBytes: number }>;

/**
 * The routes whose callers prove themselves by a header rather than a session: the header is
 * checked before the body is read, so a stranger's body costs nothing (issue 25).
 */
const GATES: Record<string, Gate> = {
  "/api/nodes/status": async ({ db }, request) =>
    (await authenticateNode(db, request.header("authorization") ?? null))
      ? { limitBytes: NODE_STATUS_LIMIT_BYTES }
      : nodeUnauthorized(),
  "/api/nodes/servers": async ({ config }, request) =>
    (await isAdminAuthorization(config.DATA_DIR, request.header("authorization") ?? null))
      ? { limitBytes: BODY_LIMIT_BYTES }
      : nodeUnauthorized("Send the token from DATA_DIR/vpn-admin.json as Authorization: Bearer <token>."),
  "/api/webhooks/stripe": async ({ config }, request) => {
    if (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET)
      return new ApiError(404, "Not found", "Stripe webhooks are not enabled on this server.");
    if (!isStripeSignatureShaped(request.header("stripe-signature")))
      return badRequest("The Stripe-Signature header is missing or malformed.");
    return { limitBytes: WEBHOOK_LIMIT_BYTES };
  },
};

const pathOf = (target: string) => target.split("?", 1)[0]!;

export function createIntake(services: Pick<AppServices, "db" | "config">): Intake {
  return {
    async admit(request) {
      const refused = targetRefusal(request.target);
      if (refused) return refused;
      const path = pathOf(request.target);
      if (!request.hasBody) return { limitBytes: 0 };
      const wrongType = contentTypeRefusal(path, request.header("content-type"));
      if (wrongType) return wrongType;
      return (await GATES[path]?.(services, request)) ?? { limitBytes: BODY_LIMIT_BYTES };
    },
    check: (request, body) => bodyRefusal(pathOf(request.target), body),
  };
}

export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, "Payload too large", `The request body must be at most ${limitBytes} bytes.`);

/**
 * The intake for a Fetch request (the in-process handler): a refusal as a Response, or the
 * request to hand on, its body read and checked.
 */
export async function admitFetchRequest(intake: Intake, request: Request): Promise<Request | ApiError> {
  const url = new URL(request.url);
  const subject: IntakeRequest = {
    method: request.method,
    target: `${url.pathname}${url.search}`,
    header: (name) => request.headers.get(name) ?? undefined,
    hasBody: request.body !== null,
  };
  const admitted = await intake.admit(subject);
  if (admitted instanceof ApiError) return admitted;
  if (!request.body) return request;
  const body = new Uint8Array(await request.arrayBuffer());
  if (body.byteLength > admitted.limitBytes) return payloadTooLarge(admitted.limitBytes);
  const refused = intake.check(subject, body);
  if (refused) return refused;
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
  });
}
