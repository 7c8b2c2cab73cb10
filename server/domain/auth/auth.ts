import { betterAuth } from "better-auth";
import { eq } from "drizzle-orm";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { bearer, twoFactor } from "better-auth/plugins";
import type { Config } from "#server/config.ts";
import type { Database, Executor } from "#server/db/client.ts";
import * as authSchema from "#server/db/schema/auth.ts";
import type { OutgoingEmail } from "#server/domain/mail/outbox.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import type { Logger } from "#server/logger.ts";

/** Where a confirmed staff member lands (spec §7: sign-up redirect target). */
export const ADMIN_HOME = "/admin/blog";

/**
 * Request header carrying the caller's address as Express saw it. The route sets it
 * (overwriting anything the client sent), so better-auth's per-IP limiter cannot be
 * fooled by a forged X-Forwarded-For.
 */
export const CLIENT_IP_HEADER = "x-naijalink-client-ip";

/** better-auth's own per-IP limits on the password endpoints. */
export const IP_LIMIT = { window: 60, max: 10 };
/**
 * Our per-account limit on sign-in and sign-up attempts, whatever the IP: a botnet
 * gets a handful of guesses per window, and the real owner waits at most one window.
 */
export const ACCOUNT_LIMIT = { limit: 5, windowMs: 5 * 60_000 };

export interface AuthDependencies {
  config: Config;
  db: Database;
  logger: Logger;
  authSecret: string;
  mail: {
    enqueue(executor: Executor, email: OutgoingEmail): Promise<string>;
    wake(): void;
  };
}

const ACCOUNT_LIMITED_PATHS: Record<string, string> = {
  "/sign-in/email": "sign-in",
  "/sign-up/email": "sign-up",
};

const SIGN_IN_COMPLETIONS = new Set([
  "/sign-in/email",
  "/two-factor/verify-totp",
  "/two-factor/verify-backup-code",
]);

/** `consumeRateLimit` prefixes keys with `app:`; the after-hook deletes by the full key. */
function accountLimitKey(action: string, email: string) {
  return `${action}:${email.trim().toLowerCase()}`;
}

export function createAuth(deps: AuthDependencies) {
  const { config, db, logger } = deps;
  const brand = config.BRAND_NAME;

  async function clearSignInFailures(email: string) {
    const key = `app:${accountLimitKey("sign-in", email)}`;
    await db.delete(authSchema.rateLimit).where(eq(authSchema.rateLimit.key, key));
  }

  async function queueEmail(email: OutgoingEmail) {
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
      // A new password ends any lock-out of the account (decision 030).
      onPasswordReset: async ({ user: owner }) => {
        await clearSignInFailures(owner.email);
      },
      sendResetPassword: async ({ user: recipient, url }) => {
        await queueEmail({
          kind: "auth.password-reset",
          to: recipient.email,
          subject: `Reset your ${brand} password`,
          text: `Someone asked to reset the password of your ${brand} staff account.\n\nChoose a new password here (the link works for one hour):\n${url}\n\nIf it was not you, ignore this e-mail.`,
        });
        logger.info({ email: recipient.email }, "password reset e-mail queued");
      },
    },
    emailVerification: {
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      sendVerificationEmail: async ({ user: recipient, url }) => {
        await queueEmail({
          kind: "auth.verify-email",
          to: recipient.email,
          subject: `Confirm your ${brand} account`,
          text: `Welcome to ${brand}.\n\nConfirm your e-mail address to finish creating your account:\n${url}\n\nIf you did not sign up, ignore this e-mail.`,
        });
        // Deliberate exception to "no tokens in logs" (decisions 030, 060), and only in demo mode
        // without a mail server: there it is how the first staff account gets confirmed.
        if (config.NAIJALINK_MODE === "demo" && !config.SMTP_URL)
          logger.info({ email: recipient.email, link: url }, "e-mail verification link");
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
      },
    },
    advanced: {
      useSecureCookies: config.PUBLIC_URL.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    telemetry: { enabled: false },
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
        const action = ACCOUNT_LIMITED_PATHS[ctx.path];
        if (!action || !ctx.request) return;
        const email = (ctx.body as { email?: unknown } | undefined)?.email;
        if (typeof email !== "string" || !email) return;
        const result = await consumeRateLimit(db, accountLimitKey(action, email), ACCOUNT_LIMIT);
        if (!result.allowed) {
          logger.warn({ action }, "per-account auth rate limit reached");
          throw new APIError(
            "TOO_MANY_REQUESTS",
            {
              message: `Too many attempts for this account. Please try again in ${result.retryAfterSeconds} seconds.`,
            },
            { "Retry-After": String(result.retryAfterSeconds) },
          );
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        // A completed sign-in clears the account's counter: only failures accumulate,
        // so the owner's own sign-ins never lock them out. With two-factor on, the
        // sign-in completes at the code check, not at the password.
        if (!SIGN_IN_COMPLETIONS.has(ctx.path) || !ctx.context.newSession) return;
        await clearSignInFailures(ctx.context.newSession.user.email);
      }),
    },
    // Optional TOTP for staff: enrol with a QR code, then every sign-in asks for a code
    // (or a one-time backup code). Its endpoints carry better-auth's own 3-per-10-s limit.
    plugins: [bearer(), twoFactor({ issuer: brand })],
  });
}

export type Auth = ReturnType<typeof createAuth>;
