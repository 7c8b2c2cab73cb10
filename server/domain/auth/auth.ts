import { betterAuth } from "better-auth";
import { eq } from "drizzle-orm";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { bearer, twoFactor } from "better-auth/plugins";
import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { Database, Executor } from "#server/db/client.ts";
import * as authSchema from "#server/db/schema/auth.ts";
import { mayMailAddress } from "#server/domain/mail/address-limit.ts";
import type { EmailRequest } from "#server/domain/mail/email-data.ts";
import type { RateLimitResult } from "#server/domain/rate-limit.ts";
import type { Logger } from "#server/logger.ts";
import { clearSignInFailures, consumeSignInAttempt, consumeSignUpAttempt } from "./account-limit.ts";
import { confirmationPageUrl, emailConfirmation } from "./confirmation.ts";
import { checkPassword } from "./credentials.ts";

/** Where a confirmed staff member lands (docs/product.md §9.1: where the confirmation link leads). */
export const ADMIN_HOME = "/admin/blog";

/**
 * Request header carrying the caller's address as Express saw it. The route sets it
 * (overwriting anything the client sent), so better-auth's per-IP limiter cannot be
 * fooled by a forged X-Forwarded-For.
 */
export const CLIENT_IP_HEADER = "x-naijalink-client-ip";

/** better-auth's own per-IP limits on the password endpoints. */
export const IP_LIMIT = { window: 60, max: 10 };

export interface AuthDependencies {
  config: Config;
  db: Database;
  logger: Logger;
  authSecret: string;
  mail: {
    enqueue(executor: Executor, email: EmailRequest): Promise<string>;
    wake(): void;
  };
}

const SIGN_IN_COMPLETIONS = new Set([
  "/sign-in/email",
  "/two-factor/verify-totp",
  "/two-factor/verify-backup-code",
]);

/**
 * What a staff member may change with /update-user. better-auth takes any object there and hands
 * `name` and `image` to the database as they came, so a null name failed as a 500.
 */
const UPDATE_USER_BODY = z.strictObject({
  name: z.string().trim().min(1).max(254).optional(),
  image: z.string().max(2048).nullable().optional(),
});

/**
 * While staff must use two-factor (`STAFF_REQUIRE_TOTP`), nobody turns it off: not the console's
 * form, not a script with a bearer token, not a call from the server's own code.
 */
export const TWO_FACTOR_KEPT = "Staff accounts must keep two-factor authentication on.";

function clientIpOf(request: Request | undefined): string {
  return request?.headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

function tooManyAttempts(result: RateLimitResult) {
  return new APIError(
    "TOO_MANY_REQUESTS",
    {
      message: `Too many attempts for this account. Please try again in ${result.retryAfterSeconds} seconds.`,
    },
    { "Retry-After": String(result.retryAfterSeconds) },
  );
}

export function createAuth(deps: AuthDependencies) {
  const { config, db, logger } = deps;
  const brand = config.BRAND_NAME;

  /** Queues an account mail unless its address has had its share for now (address-limit.ts). */
  async function queueEmail(email: EmailRequest) {
    if (!(await mayMailAddress(db, "staff-account", email.to))) {
      logger.info({ kind: email.template }, "account e-mail not sent: its address had its share for now");
      return;
    }
    await deps.mail.enqueue(db, email);
    deps.mail.wake();
  }

  return betterAuth({
    appName: brand,
    secret: deps.authSecret,
    baseURL: config.PUBLIC_URL,
    basePath: "/api/auth",
    trustedOrigins: [config.PUBLIC_URL],
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: {
        user: authSchema.user,
        session: authSchema.session,
        account: authSchema.account,
        verification: authSchema.verification,
        twoFactor: authSchema.twoFactor,
        rateLimit: authSchema.rateLimit,
      },
    }),
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      revokeSessionsOnPasswordReset: true,
      // The reset link reached the mailbox and its holder chose the password: that confirms the
      // address too, and is how an owner takes back an address a stranger signed up with.
      // A new password also ends every lock-out of the account.
      onPasswordReset: async ({ user: owner }) => {
        await db.update(authSchema.user).set({ emailVerified: true }).where(eq(authSchema.user.id, owner.id));
        await clearSignInFailures(db, owner.email);
      },
      // better-auth answers a sign-up for a taken address like a new one and keeps the stored
      // password; the owner is told, in case it was them.
      onExistingUserSignUp: async ({ user: owner }) => {
        await queueEmail({ template: "auth.existing-account", to: owner.email, data: {} });
      },
      sendResetPassword: async ({ user: recipient, url }) => {
        await queueEmail({ template: "auth.password-reset", to: recipient.email, data: { url } });
        logger.info({ staff: recipient.id }, "password reset e-mail queued");
      },
    },
    emailVerification: {
      sendOnSignIn: true,
      // The link opens a page that asks for the sign-up password (decision 065), not
      // better-auth's /verify-email, which would confirm on a bare click.
      sendVerificationEmail: async ({ user: recipient, token }) => {
        const url = confirmationPageUrl(config.PUBLIC_URL, token);
        await queueEmail({ template: "auth.verify-email", to: recipient.email, data: { url } });
        // Deliberate exception to "no tokens in logs" (decisions 030, 060), and only in demo mode
        // without a mail server: there it is how the first staff account gets confirmed.
        if (config.NAIJALINK_MODE === "demo" && !config.SMTP_URL)
          logger.info({ staff: recipient.id, link: url }, "e-mail verification link");
      },
    },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": IP_LIMIT,
        "/sign-up/email": IP_LIMIT,
        "/confirm-email": IP_LIMIT,
      },
    },
    advanced: {
      useSecureCookies: config.PUBLIC_URL.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    telemetry: { enabled: false },
    // Unexpected errors leave better-auth for the route's handleApi, which logs them through the
    // JSON logger; otherwise its router prints them with `# SERVER_ERROR:` to stdout (issue 25).
    onAPIError: { throw: true },
    logger: {
      // "info": with "warn", "error" or "debug" better-auth also prints every refused request
      // (wrong password, rate limit) to the console through its own logger.
      level: "info",
      // Only the message and an error's name: better-auth's extra arguments can carry
      // query parameters (password hashes, tokens) that must not reach the log.
      log: (level, message, ...args) => {
        const error = args.find((arg): arg is Error => arg instanceof Error);
        const fields = { source: "better-auth", ...(error ? { errorName: error.name } : {}) };
        if (level === "error") logger.error(fields, message);
        else if (level === "warn") logger.warn(fields, message);
        else logger.debug(fields, message);
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Before the request check: a call from the server's own code obeys the policy too.
        if (ctx.path === "/two-factor/disable" && config.STAFF_REQUIRE_TOTP)
          throw new APIError("FORBIDDEN", { message: TWO_FACTOR_KEPT });
        if (!ctx.request) return;
        if (ctx.path === "/update-user" && !UPDATE_USER_BODY.safeParse(ctx.body).success)
          throw new APIError("BAD_REQUEST", {
            message: "Send a name of 1 to 254 characters, an image address or null, and nothing else.",
          });
        const { email, password } = (ctx.body ?? {}) as { email?: unknown; password?: unknown };
        if (typeof email !== "string" || !email) return;
        if (ctx.path === "/sign-up/email") {
          const result = await consumeSignUpAttempt(db, email);
          if (!result.allowed) {
            logger.warn({ action: "sign-up" }, "per-account auth rate limit reached");
            throw tooManyAttempts(result);
          }
        }
        if (ctx.path === "/sign-in/email") {
          const result = await consumeSignInAttempt(db, email, clientIpOf(ctx.request));
          if (result.allowed) return;
          // With two-factor on, the right password only leads to the code check (which keeps
          // better-auth's own limits), so it may pass even here: guesses from this address
          // cannot lock the owner out.
          const checked =
            typeof password === "string" ? await checkPassword(ctx.context, email, password) : null;
          if (checked?.matches && checked.user.twoFactorEnabled) return;
          logger.warn({ action: "sign-in" }, "per-account auth rate limit reached");
          throw tooManyAttempts(result);
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        // A completed sign-in clears the counter of its account and address: only failures
        // accumulate, so the owner's own sign-ins never lock them out. With two-factor on, the
        // sign-in completes at the code check, not at the password.
        const signedIn = ctx.context.newSession;
        if (!SIGN_IN_COMPLETIONS.has(ctx.path) || !signedIn) return;
        // This hook runs before the two-factor plugin turns the password step into a challenge.
        if (ctx.path === "/sign-in/email" && signedIn.user.twoFactorEnabled) return;
        await clearSignInFailures(db, signedIn.user.email, clientIpOf(ctx.request));
      }),
    },
    // Optional TOTP for staff: enrol with a QR code, then every sign-in asks for a code
    // (or a one-time backup code). Its endpoints carry better-auth's own 3-per-10-s limit.
    plugins: [bearer(), twoFactor({ issuer: brand }), emailConfirmation(config.PUBLIC_URL)],
  });
}

export type Auth = ReturnType<typeof createAuth>;
