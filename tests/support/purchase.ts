// A buyer's calls to the purchase API, as the pages make them.
import { expect } from "vitest";
import { BUYER_COOKIE } from "#server/http/buyer-cookie.ts";
import type { TestApp } from "./app.ts";

/** The `Cookie` header a browser sends back after this response set the buyer cookie. */
export function buyerCookieFrom(response: Response): string {
  const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${BUYER_COOKIE}=`));
  if (!setCookie) throw new Error("the response set no buyer cookie");
  return setCookie.split(";")[0]!;
}

/** POST /api/create-checkout from a browser holding `cookie` (if any); returns the session and the browser's cookie. */
export async function startCheckout(
  app: TestApp,
  planId: string,
  customerEmail = "buyer@example.com",
  cookie?: string,
) {
  const response = await app.request("/api/create-checkout", {
    json: { planId, customerEmail },
    headers: cookie ? { cookie } : {},
  });
  expect(response.status).toBe(200);
  const { url } = (await response.json()) as { url: string };
  const sessionId = new URL(url).pathname.split("/").pop()!;
  return { url, sessionId, buyerCookie: buyerCookieFrom(response), response };
}

/** Pays a built-in checkout session with this card (expiry 12/34, CVC 123). */
export function payWith(app: TestApp, sessionId: string, cardNumber: string) {
  return app.request(`/checkout/${sessionId}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ cardNumber, expiry: "12/34", cvc: "123" }).toString(),
  });
}

/** POST /api/verify-payment, from the paying browser when `cookie` is its buyer cookie. */
export function verify(app: TestApp, body: unknown, cookie?: string) {
  return app.request("/api/verify-payment", { json: body, headers: cookie ? { cookie } : {} });
}
