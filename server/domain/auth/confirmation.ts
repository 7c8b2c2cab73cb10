// Confirming a new account's address takes the e-mailed link AND the password chosen at sign-up
// (decision 065): whoever signs up first with someone else's address cannot have the owner's
// click confirm an account that holds the stranger's password.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthEndpoint, createAuthMiddleware } from "better-auth/api";
import { verifyJWT } from "better-auth/crypto";
import { z } from "zod";
import { checkPassword } from "./credentials.ts";

/** The page the confirmation e-mail links to: it asks for the sign-up password. */
export function confirmationPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/admin/login?confirm=${encodeURIComponent(token)}`;
}

/** better-auth's e-mail verification token (a signed JWT); a change-of-address token carries `updateTo`. */
const verificationClaims = z.object({
  email: z.email(),
  userId: z.string().optional(),
  updateTo: z.undefined().optional(),
  requestType: z.undefined().optional(),
});

const confirmBody = z.object({
  token: z.string().min(1).max(4096),
  password: z.string().min(1).max(1024),
});

export const INVALID_CONFIRMATION_LINK =
  "This confirmation link is invalid or has expired. Sign in with your e-mail address and password to get a new one.";
export const WRONG_SIGN_UP_PASSWORD =
  "That is not the password this account was signed up with. If you did not sign up yourself, or forgot it, choose a new password with Forgot your password? on the sign-in page.";

export function emailConfirmation(publicUrl: string) {
  return {
    id: "naijalink-email-confirmation",
    endpoints: {
      /** POST /api/auth/confirm-email {token, password} → {email}; the page then signs in as usual. */
      confirmEmail: createAuthEndpoint(
        "/confirm-email",
        { method: "POST", body: confirmBody, metadata: { noStore: true } },
        async (ctx) => {
          const claims = verificationClaims.safeParse(await verifyJWT(ctx.body.token, ctx.context.secret));
          const checked =
            claims.success && (await checkPassword(ctx.context, claims.data.email, ctx.body.password));
          if (!claims.success || !checked || (claims.data.userId && claims.data.userId !== checked.user.id)) {
            throw APIError.from("BAD_REQUEST", { code: "INVALID_TOKEN", message: INVALID_CONFIRMATION_LINK });
          }
          if (!checked.matches) {
            throw APIError.from("UNAUTHORIZED", {
              code: "WRONG_SIGN_UP_PASSWORD",
              message: WRONG_SIGN_UP_PASSWORD,
            });
          }
          if (!checked.user.emailVerified) {
            await ctx.context.internalAdapter.updateUser(checked.user.id, { emailVerified: true });
          }
          return ctx.json({ email: checked.user.email });
        },
      ),
    },
    hooks: {
      // better-auth's own link would confirm on a bare click; a link e-mailed before this
      // change is sent to the page that asks for the password instead.
      before: [
        {
          matcher: (context) => context.path === "/verify-email",
          handler: createAuthMiddleware(async (ctx) => {
            const token = typeof ctx.query?.token === "string" ? ctx.query.token : "";
            throw ctx.redirect(confirmationPageUrl(publicUrl, token));
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
