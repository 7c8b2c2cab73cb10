import { createCookie } from "react-router";
import type { Config } from "#server/config.ts";
import { generateToken } from "#server/secrets.ts";

// The paying browser's proof: set when checkout starts, sent back by the success
// page when it adds a device. HttpOnly, so no page script (nor an injected one) can read it; the
// database keeps only its hash.

/** A year: the longest plan period, so a device can be added any time during it. */
const MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const BUYER_COOKIE = "naijalink_buyer";

const buyerCookie = createCookie(BUYER_COOKIE, {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: MAX_AGE_SECONDS,
});

/** The buyer token in the request's cookie, if it carries a well-formed one. */
export async function readBuyerToken(request: Request): Promise<string | null> {
  const value: unknown = await buyerCookie.parse(request.headers.get("Cookie"));
  return typeof value === "string" && TOKEN_SHAPE.test(value) ? value : null;
}

/** The browser's own token when it has one (one browser, one cookie, however often it buys), or a new one. */
export async function buyerTokenFor(request: Request): Promise<string> {
  return (await readBuyerToken(request)) ?? generateToken(TOKEN_BYTES);
}

/** The `Set-Cookie` value that gives (or renews) the browser its token. */
export function buyerCookieHeader(token: string, config: Pick<Config, "PUBLIC_URL">): Promise<string> {
  return buyerCookie.serialize(token, { secure: config.PUBLIC_URL.startsWith("https://") });
}
