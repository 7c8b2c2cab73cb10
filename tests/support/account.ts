// A buyer at /account: asking for the e-mailed sign-in link and using it (decision 067).
import fs from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { linkInQueuedEmail } from "./staff.ts";
import type { TestApp } from "./app.ts";
import { payWith, startCheckout } from "./purchase.ts";

export const CUSTOMER_SESSION_COOKIE = "naijalink-customer.session_token";

/** POST /api/account/auth/sign-in/magic-link, as the account page's form makes it. */
export function askForSignInLink(app: TestApp, email: string, clientIp?: string) {
  return app.request("/api/account/auth/sign-in/magic-link", {
    json: { email, callbackURL: "/account", errorCallbackURL: "/account?sign-in=failed" },
    headers: { origin: app.config.PUBLIC_URL },
    clientIp,
  });
}

/** The link of the newest sign-in e-mail queued for `email`. */
export async function signInLink(app: TestApp, email: string): Promise<string> {
  await app.services.mail.detachedSettled();
  return linkInQueuedEmail(app, email, "account.sign-in");
}

/**
 * The account page the e-mailed link opens: its Sign in form's target with the hidden fields,
 * read from the HTML as a browser would submit it.
 */
export async function signInFormTarget(app: TestApp, link: string): Promise<string> {
  const page = await app.request(link);
  expect(page.status).toBe(200);
  expect(page.headers.getSetCookie().some((cookie) => cookie.startsWith(CUSTOMER_SESSION_COOKIE))).toBe(
    false,
  );
  const html = await page.text();
  const action = /<form[^>]* action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error("the sign-in link opened no Sign in form");
  const target = new URL(action, app.config.PUBLIC_URL);
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    target.searchParams.set(name!, value!.replaceAll("&amp;", "&"));
  return target.toString();
}

/**
 * Opens the e-mailed link and presses Sign in; answers the redirect and the customer's `Cookie`
 * header (empty if none).
 */
export async function openSignInLink(app: TestApp, link: string) {
  const response = await app.request(await signInFormTarget(app, link), { redirect: "manual" });
  const session = response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .find((pair) => pair.startsWith(`${CUSTOMER_SESSION_COOKIE}=`) && !pair.endsWith("="));
  return { response, location: response.headers.get("location"), cookie: session ?? "" };
}

/** A paid built-in checkout of `planId` for `email`; answers its session id. */
export async function buy(app: TestApp, planId: string, email: string): Promise<string> {
  const { sessionId } = await startCheckout(app, planId, email);
  expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
  return sessionId;
}

/** Buys (if told), asks for a link, opens it: the customer's cookie header. */
export async function signedInCustomer(app: TestApp, email: string): Promise<string> {
  expect((await askForSignInLink(app, email)).status).toBe(200);
  const { cookie } = await openSignInLink(app, await signInLink(app, email));
  expect(cookie).not.toBe("");
  return cookie;
}

/** POST /api/account/{path} with the customer's cookie (or none). */
export function accountRequest(app: TestApp, path: string, body: unknown, cookie = "") {
  return app.request(`/api/account/${path}`, { json: body, headers: cookie ? { cookie } : {} });
}

/**
 * The sign-in link of the newest `.eml` to `email` in the file outbox of a running server
 * (quoted-printable decoded), waiting a few seconds for the mail worker.
 */
export async function signInLinkFromOutboxFiles(dataDir: string, email: string): Promise<string> {
  const outbox = path.join(dataDir, "outbox");
  for (let attempt = 0; attempt < 100; attempt++) {
    const names = (await fs.readdir(outbox).catch(() => [] as string[])).filter((name) =>
      name.endsWith(".eml"),
    );
    for (const name of names.sort().reverse()) {
      const body = (await fs.readFile(path.join(outbox, name), "utf8"))
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (!body.includes(`To: ${email}`)) continue;
      const match = /https?:\/\/\S+\/account\?token=\S+/.exec(body);
      if (match) return match[0];
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no sign-in e-mail for ${email} in ${outbox}`);
}
