// `Cache-Control` of every answer (issue 25), set at the edge for every route, so a new route is
// covered without doing anything: staff and customer pages, their `.data` answers, the account,
// admin and auth API, the success page and the checkout say `private, no-store` whatever their
// route set; any other answer that says nothing gets the same. Only answers that declare a
// policy of their own (the page cache's pages, the build's assets, public resources) keep it.
import type { NodeHandler } from "./security-headers.ts";
import onHeaders from "on-headers";

export const PRIVATE_NO_STORE = "private, no-store";

/** The paths whose answers are about one person: staff, customers, their sessions and payments. */
const PERSONAL =
  /^\/(?:admin|account|payment-success|checkout|api\/(?:admin|account|blog-admin|auth|verify-payment|configs))(?:[/.]|$)/;

export const isPersonalPath = (pathname: string) => PERSONAL.test(pathname);

/** The `Cache-Control` an answer at `pathname` goes out with, given the one its route set (if any). */
export function cacheControlFor(pathname: string, routeValue: string | undefined | null): string {
  if (isPersonalPath(pathname)) return PRIVATE_NO_STORE;
  return routeValue || PRIVATE_NO_STORE;
}

/** The policy on Node's answers, applied as their headers are written. */
export function withCachePolicy(handler: NodeHandler): NodeHandler {
  return (request, response) => {
    const pathname = (request.url ?? "/").split("?", 1)[0]!;
    onHeaders(response, function () {
      const current = this.getHeader("cache-control");
      this.setHeader(
        "Cache-Control",
        cacheControlFor(pathname, current === undefined ? undefined : String(current)),
      );
    });
    handler(request, response);
  };
}

/**
 * The personal-path half of the policy on a Fetch answer (the in-process handler). The default for
 * answers that declare nothing is the HTTP server's alone: what the in-process handler renders may
 * be kept by a page cache in front of it, which stores only answers without `private`.
 */
export function applyCachePolicy(pathname: string, response: Response): Response {
  if (!isPersonalPath(pathname) || response.headers.get("cache-control") === PRIVATE_NO_STORE)
    return response;
  const headers = new Headers(response.headers);
  headers.set("Cache-Control", PRIVATE_NO_STORE);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
