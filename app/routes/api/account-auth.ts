// The customers' better-auth endpoints under /api/account/auth/*: only the few a
// customer needs; every other path is 404.
import {
  CUSTOMER_AUTH_BASE_PATH,
  CUSTOMER_AUTH_PATHS,
  CUSTOMER_CLIENT_IP_HEADER,
} from "#server/domain/account/customer-auth.ts";
import { errorResponse, handleApi } from "#server/http/api.ts";
import { notFound } from "#server/domain/errors.ts";
import { hideSessionToken } from "#server/http/session-token.ts";
import type { Route } from "./+types/account-auth";

async function forward({ request, context }: Route.LoaderArgs | Route.ActionArgs) {
  const path = new URL(request.url).pathname.slice(CUSTOMER_AUTH_BASE_PATH.length);
  if (!CUSTOMER_AUTH_PATHS.includes(path)) return errorResponse(notFound("There is no such sign-in call."));
  const headers = new Headers(request.headers);
  headers.set(CUSTOMER_CLIENT_IP_HEADER, context.clientIp);
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers };
  if (request.body) {
    init.body = request.body;
    init.duplex = "half";
  }
  const response = await context.services.customerAuth.handler(new Request(request.url, init));
  return hideSessionToken(request, response);
}

// handleApi: an unexpected error is logged through the JSON logger and answered with a generic 500.
export const loader = (args: Route.LoaderArgs) => handleApi(args, () => forward(args));
export const action = (args: Route.ActionArgs) => handleApi(args, () => forward(args));
