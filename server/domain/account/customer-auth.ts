import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { getSessionCookie } from "better-auth/cookies";
import { magicLink } from "better-auth/plugins";
import { sql } from "drizzle-orm";
import type { Config } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import * as customerSchema from "#server/db/schema/customer.ts";
import { subscriptions } from "#server/db/schema/index.ts";
import { mayMailAddress } from "#server/domain/mail/address-limit.ts";
import type { EmailRequest } from "#server/domain/mail/email-data.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import type { Logger } from "#server/logger.ts";

// Customers sign in with an e-mailed one-time link, through a better-auth instance
// of their own: its own base path, cookie prefix and tables. A staff cookie or bearer token is
// looked up in the staff tables only, a customer's in these only, so neither opens the other's area.

export const CUSTOMER_AUTH_BASE_PATH = "/api/account/auth";
export const CUSTOMER_COOKIE_PREFIX = "naijalink-customer";
/** Where the link leads after signing in, and where a spent or expired link is reported. */
export const ACCOUNT_PAGE = "/account";

/** Header the route sets to the caller's address as Express saw it (never the client's own claim). */
export const CUSTOMER_CLIENT_IP_HEADER = "x-naijalink-client-ip";

export const SIGN_IN_LINK_MINUTES = 15;

export const SIGN_IN_LIMITS = {
  windowMs: 15 * 60_000,
  /** Links asked for from one client address per window (per e-mail address: ADDRESS_MAIL_LIMIT). */
  perClient: 10,
};

/** The only better-auth endpoints a customer needs; the route answers 404 for every other one. */
export const CUSTOMER_AUTH_PATHS = ["/sign-in/magic-link", "/magic-link/verify", "/get-session", "/sign-out"];

/** The e-mailed link: the account page, holding the one-time token until the buyer confirms. */
export function signInPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${ACCOUNT_PAGE}?token=${encodeURIComponent(token)}`;
}

/** Where the account page's Sign in button goes: better-auth's verify endpoint. */
export const SIGN_IN_VERIFY_PATH = `${CUSTOMER_AUTH_BASE_PATH}/magic-link/verify`;

export interface CustomerAuthDependencies {
  config: Config;
  db: Database;
  logger: Logger;
  authSecret: string;
  mail: {
    enqueueDetached(kind: string, compose: () => Promise<EmailRequest | null>): void;
  };
}

/** Whether any subscription, whatever its state, was bought with this address. */
async function hasBought(db: Database, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(sql`lower(${subscriptions.customerEmail}) = ${email.trim().toLowerCase()}`)
    .limit(1);
  return Boolean(row);
}

export function createCustomerAuth(deps: CustomerAuthDependencies) {
  const { config, db, logger } = deps;
  return betterAuth({
    appName: config.BRAND_NAME,
    // Derived from the staff secret, so the two instances never sign each other's cookies.
    secret: `${deps.authSecret}:customer`,
    baseURL: config.PUBLIC_URL,
    basePath: CUSTOMER_AUTH_BASE_PATH,
    trustedOrigins: [config.PUBLIC_URL],
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        customerUser: customerSchema.customerUser,
        customerSession: customerSchema.customerSession,
        customerAccount: customerSchema.customerAccount,
        customerVerification: customerSchema.customerVerification,
      },
    }),
    user: { modelName: "customerUser" },
    session: { modelName: "customerSession", expiresIn: 30 * 86_400, updateAge: 86_400 },
    account: { modelName: "customerAccount" },
    verification: { modelName: "customerVerification" },
    emailAndPassword: { enabled: false },
    rateLimit: { enabled: true, storage: "memory", window: 60, max: 30 },
    advanced: {
      cookiePrefix: CUSTOMER_COOKIE_PREFIX,
      useSecureCookies: config.PUBLIC_URL.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      ipAddress: { ipAddressHeaders: [CUSTOMER_CLIENT_IP_HEADER] },
    },
    telemetry: { enabled: false },
    // As the staff instance: unexpected errors go to the route's handleApi and the JSON logger.
    onAPIError: { throw: true },
    logger: {
      level: "info",
      // Only the message: better-auth's extra arguments can carry the link's query (its token).
      log: (level, message) => {
        const fields = { source: "better-auth-customer" };
        if (level === "error") logger.error(fields, message);
        else if (level === "warn") logger.warn(fields, message);
        else logger.debug(fields, message);
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/magic-link") return;
        const { email } = (ctx.body ?? {}) as { email?: unknown };
        if (typeof email !== "string") return;
        const clientIp = ctx.headers?.get(CUSTOMER_CLIENT_IP_HEADER) ?? "unknown";
        // Per client only: the per-address limit is on sending (sendMagicLink), so requests for
        // someone else's address never refuse that person their own link (issue 25).
        const refused = await consumeRateLimit(db, `customer-sign-in:client:${clientIp}`, {
          limit: SIGN_IN_LIMITS.perClient,
          windowMs: SIGN_IN_LIMITS.windowMs,
        });
        if (refused.allowed) return;
        logger.warn({ action: "customer-sign-in" }, "customer sign-in rate limit reached");
        throw new APIError(
          "TOO_MANY_REQUESTS",
          {
            message: `Too many sign-in links were asked for. Please try again in ${Math.ceil(refused.retryAfterSeconds / 60)} minutes.`,
          },
          { "Retry-After": String(refused.retryAfterSeconds) },
        );
      }),
    },
    plugins: [
      magicLink({
        expiresIn: SIGN_IN_LINK_MINUTES * 60,
        storeToken: "hashed",
        // Its own per-IP fence (in memory, per process) sits above the app's shared limits.
        rateLimit: { window: 60, max: SIGN_IN_LIMITS.perClient },
        // Accounts exist only for buyers: a link goes only to an address with a subscription,
        // and the caller is answered the same either way (no enumeration).
        // The e-mail links to /account, whose button opens better-auth's verify URL: a mail
        // scanner's GET of the link shows a page and spends nothing (decision 067).
        // Everything after the token is stored happens once the caller has its answer, so the
        // answer takes as long for an address that bought as for one that did not.
        sendMagicLink: ({ email, token }) => {
          deps.mail.enqueueDetached("account.sign-in", async () => {
            if (!(await hasBought(db, email))) {
              logger.info(
                { action: "customer-sign-in" },
                "sign-in link not sent: no subscription for the address",
              );
              return null;
            }
            if (!(await mayMailAddress(db, "customer-sign-in", email))) {
              logger.info(
                { action: "customer-sign-in" },
                "sign-in link not sent: the address had its share for now; the links sent still work",
              );
              return null;
            }
            return {
              template: "account.sign-in",
              to: email,
              replyTo: config.SUPPORT_EMAIL,
              data: { url: signInPageUrl(config.PUBLIC_URL, token), minutes: SIGN_IN_LINK_MINUTES },
            };
          });
        },
      }),
    ],
  });
}

export type CustomerAuth = ReturnType<typeof createCustomerAuth>;

export interface Customer {
  id: string;
  email: string;
}

/**
 * The signed-in customer of this request (customer cookie only), or null. A request without the
 * session cookie has no session: better-auth is not asked (every success-page check comes here).
 */
export async function customerOf(auth: CustomerAuth, request: Request): Promise<Customer | null> {
  if (!getSessionCookie(request, { cookiePrefix: CUSTOMER_COOKIE_PREFIX })) return null;
  const found = await auth.api.getSession({ headers: request.headers });
  if (!found?.user.emailVerified) return null;
  return { id: found.user.id, email: found.user.email.toLowerCase() };
}
