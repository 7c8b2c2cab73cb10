// The staff sign-in page's posts (sign in, sign up, reset, two-factor code, confirm the address).
// Each goes to better-auth's own endpoint through its handler, as the browser's JSON call did:
// server-side `auth.api.*` calls skip better-auth's rate limits and our per-account hooks, which
// need the request (decision 113). Its cookies come back with the page's answer.
import { data, redirect } from "react-router";
import { z } from "zod";
import type { LoginAnswer } from "#app/components/admin/login-forms.tsx";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { ADMIN_HOME } from "#server/domain/auth/auth.ts";
import { badRequest, forbidden, methodNotAllowed, parseInput, ApiError, statusOf } from "#server/http/api.ts";
import { authPost, withAuthCookies as withCookies, type AuthAnswer } from "#server/http/staff-form.ts";
import type { Route } from "./+types/admin-login";

/**
 * The address typed into the sign-in form, handed back with a refusal so the page a script-less
 * browser gets back keeps it (never the password).
 */
function typedEmail(fields: Record<string, string>): string | undefined {
  const typed = fields.email?.trim();
  return typed && typed.length <= 254 ? typed : undefined;
}

/** better-auth's refusal as the form shows it: its own message, or the page's fallback. */
function refused(answer: AuthAnswer, fallback: string, email?: string) {
  const message =
    typeof answer.body.message === "string" && answer.body.message ? answer.body.message : fallback;
  const status = answer.status >= 400 && answer.status < 500 ? answer.status : 400;
  return data<LoginAnswer>(
    { ok: false, error: "Refused", message, email },
    { status, headers: withCookies(answer.cookies) },
  );
}

const email = z.email("Enter a valid e-mail address.").max(254);
const password = z.string().min(1, "Enter your password.").max(128);
const schemas = {
  "sign-in": z.object({ email, password }),
  "sign-up": z.object({ email, password }),
  forgot: z.object({ email }),
  reset: z.object({ token: z.string().min(1).max(500), newPassword: password }),
  "two-factor": z.object({
    code: z.string().trim().min(1, "Enter the code.").max(64),
    backup: z.enum(["0", "1"]),
  }),
  confirm: z.object({ token: z.string().min(1).max(500), password }),
};

const LOGGED_IN: Flash = { type: "success", title: "Logged in successfully" };

async function run(args: Route.ActionArgs, intent: keyof typeof schemas, fields: Record<string, string>) {
  switch (intent) {
    case "sign-in": {
      const input = parseInput(schemas["sign-in"], fields);
      const answer = await authPost(args, "sign-in/email", { ...input, callbackURL: ADMIN_HOME });
      if (!answer.ok) return refused(answer, "Failed to log in", input.email);
      if (answer.body.twoFactorRedirect)
        return data<LoginAnswer>(
          { ok: true, intent, step: "two-factor" },
          { headers: withCookies(answer.cookies) },
        );
      return redirect(ADMIN_HOME, {
        headers: withCookies(answer.cookies, flashCookie(args.context.services, LOGGED_IN)),
      });
    }
    case "sign-up": {
      const input = parseInput(schemas["sign-up"], fields);
      const name = input.email.split("@")[0] || input.email;
      const answer = await authPost(args, "sign-up/email", { ...input, name, callbackURL: ADMIN_HOME });
      if (!answer.ok) return refused(answer, "Failed to sign up", input.email);
      return data<LoginAnswer>({ ok: true, intent, done: "Check your email to confirm your account" });
    }
    case "forgot": {
      const input = parseInput(schemas.forgot, fields);
      await authPost(args, "request-password-reset", { ...input, redirectTo: "/admin/login" });
      return data<LoginAnswer>({
        ok: true,
        intent,
        done: "If this address has an account, a reset link is on its way.",
      });
    }
    case "reset": {
      const input = parseInput(schemas.reset, fields);
      const answer = await authPost(args, "reset-password", input);
      if (!answer.ok) return refused(answer, "Failed to reset the password");
      const changed: Flash = { type: "success", title: "Password changed. Sign in with the new password." };
      return redirect("/admin/login", {
        headers: withCookies(answer.cookies, flashCookie(args.context.services, changed)),
      });
    }
    case "two-factor": {
      const input = parseInput(schemas["two-factor"], fields);
      const path = input.backup === "1" ? "two-factor/verify-backup-code" : "two-factor/verify-totp";
      const answer = await authPost(args, path, { code: input.code });
      if (!answer.ok) return refused(answer, "Failed to log in");
      return redirect(ADMIN_HOME, {
        headers: withCookies(answer.cookies, flashCookie(args.context.services, LOGGED_IN)),
      });
    }
    case "confirm": {
      const input = parseInput(schemas.confirm, fields);
      const confirmed = await authPost(args, "confirm-email", input);
      if (!confirmed.ok) return refused(confirmed, "Failed to confirm your account");
      const signedIn = await authPost(args, "sign-in/email", {
        email: confirmed.body.email,
        password: input.password,
      });
      if (!signedIn.ok || signedIn.body.twoFactorRedirect) {
        const next: Flash = { type: "success", title: "Your account is confirmed. Sign in to continue." };
        return redirect("/admin/login", {
          headers: withCookies([], flashCookie(args.context.services, next)),
        });
      }
      return redirect(ADMIN_HOME, {
        headers: withCookies(signedIn.cookies, flashCookie(args.context.services, LOGGED_IN)),
      });
    }
  }
}

/** The page's action: posted from this site's own page, one intent, the refusal as data. */
export async function loginAction(args: Route.ActionArgs) {
  const fields: Record<string, string> = {};
  try {
    if (args.request.method !== "POST") throw methodNotAllowed(["POST"]);
    const site = args.request.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin") throw forbidden("Send this form from the site's own page.");
    const form = await args.request.formData().catch(() => {
      throw new ApiError(415, "Unsupported media type", "Send the form as form data.");
    });
    for (const [name, value] of form) if (typeof value === "string") fields[name] = value;
    const intent = fields.intent ?? "";
    if (!Object.hasOwn(schemas, intent))
      throw badRequest("This form asks for an action this page does not offer.");
    delete fields.intent;
    return await run(args, intent as keyof typeof schemas, fields);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return data<LoginAnswer>(
      { ok: false, error: error.error, message: error.message, email: typedEmail(fields) },
      { status: statusOf(error).status, headers: { "Cache-Control": "no-store" } },
    );
  }
}
