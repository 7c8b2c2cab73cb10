// better-auth's own endpoints (/api/auth/sign-in/email, /api/auth/sign-up/email, …).
import { CLIENT_IP_HEADER } from "#server/domain/auth/auth.ts";
import { handleApi } from "#server/http/api.ts";
import { hideSessionToken } from "#server/http/session-token.ts";
import type { Route } from "./+types/auth";

/**
 * Hands the request to better-auth with the caller's address as Express saw it, and keeps the
 * session token out of what a browser receives.
 */
async function forward({ request, context }: Route.LoaderArgs | Route.ActionArgs) {
  const headers = new Headers(request.headers);
  headers.set(CLIENT_IP_HEADER, context.clientIp);
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers };
  if (request.body) {
    init.body = request.body;
    init.duplex = "half";
  }
  const response = await context.services.auth.handler(new Request(request.url, init));
  return hideSessionToken(request, response);
}

// handleApi: an unexpected error is logged through the JSON logger and answered with a generic 500.
export const loader = (args: Route.LoaderArgs) => handleApi(args, () => forward(args));
export const action = (args: Route.ActionArgs) => handleApi(args, () => forward(args));
