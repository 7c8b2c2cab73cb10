// What every request goes through before a route sees it (issues 25, 37): its method, its Host,
// its target and, for a POST, whether a route has an action for it and its body's declared type
// are checked, then the route's credential (for the routes that take one instead of a session)
// before a byte of the body is read, then the body against its limit, then the body against the
// input rule. The real server applies it to Node's requests (body-limit.ts); the in-process
// handler tests use (app.ts) applies it to Fetch requests.
import { isStripeSignatureShaped } from "#server/domain/billing/webhook.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { authenticateNode } from "#server/domain/vpn/nodes.ts";
import type { AppServices } from "#server/services.ts";
import { ApiError, badRequest, methodNotAllowed, routeLabel } from "./api.ts";
import { bodyKindOf, bodyRefusal, contentTypeRefusal, hostRefusal, targetRefusal } from "./input-rule.ts";
import { nodeUnauthorized } from "./node-auth.ts";
import type { ActionLookup } from "./route-actions.ts";

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A node's status report lists up to 100,000 peers. */
export const NODE_STATUS_LIMIT_BYTES = 16 * 1024 * 1024;
export const WEBHOOK_LIMIT_BYTES = 512 * 1024;

/** The methods the app answers; any other (TRACE, PUT, PROPFIND, …) is a 405 before a route sees it. */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"] as const;
const ALLOWED = new Set<string>(ALLOWED_METHODS);

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

/** `actions`: the route table's answer to "which route does a POST to this target reach". */
export function createIntake(
  services: Pick<AppServices, "db" | "config" | "logger">,
  actions?: () => Promise<ActionLookup>,
): Intake {
  const proxied = services.config.TRUST_PROXY !== false;
  /** A refusal of the method, logged at info: a client's mistake (or a probe), not the app's. */
  const notAllowed = (request: IntakeRequest, allowed: readonly string[]) => {
    services.logger.info(
      { method: request.method.slice(0, 20), route: routeLabel(pathOf(request.target)) },
      "method not allowed",
    );
    return methodNotAllowed([...allowed]);
  };
  return {
    async admit(request) {
      if (!ALLOWED.has(request.method)) return notAllowed(request, ALLOWED_METHODS);
      const badHost = hostRefusal(
        request.header("host"),
        proxied ? request.header("x-forwarded-host") : undefined,
      );
      if (badHost) return badHost;
      const refused = targetRefusal(request.target);
      if (refused) return refused;
      const path = pathOf(request.target);
      const route = request.method === "POST" ? (await actions?.())?.(request.target) : undefined;
      if (route?.action === false) return notAllowed(request, ["GET", "HEAD"]);
      // A page's action reads its form even when it is empty, so an empty POST needs the form's type too.
      const typed = request.hasBody || (route?.page === true && bodyKindOf(path) === "form");
      if (!typed) return { limitBytes: 0 };
      const wrongType = contentTypeRefusal(path, request.header("content-type"));
      if (wrongType) return wrongType;
      if (!request.hasBody) return { limitBytes: 0 };
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
    // A Fetch request names its host in its URL.
    header: (name) => (name === "host" ? url.host : (request.headers.get(name) ?? undefined)),
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
