// The two-factor enrolment on /admin/blog: turn it on (password → QR code and backup codes),
// confirm a first code, turn it off. Each step goes to better-auth's own endpoint through its
// handler (decision 113); the new session cookie it sets comes back with the answer. The secret
// and the backup codes travel only in answer bodies and in the confirm form's hidden fields (so a
// refused code shows them again without JavaScript): never in a URL, a flash cookie or a log.
import { data, redirect } from "react-router";
import { z } from "zod";
import type {
  TwoFactorAnswer,
  TwoFactorEnrolment,
  TwoFactorIntent,
} from "#app/components/admin/two-factor-settings.tsx";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { badRequest, parseInput } from "#server/http/api.ts";
import { qrCodeSvg } from "#server/qr-code.ts";
import { authPost, enrolmentFormAction, withAuthCookies, type AuthAnswer } from "#server/http/staff-form.ts";
import type { Route } from "./+types/admin-blog";

const ADMIN_BLOG = "/admin/blog";
const password = z.string().min(1, "Enter your password.").max(128);
const backupCodes = z
  .string()
  .max(1000)
  .transform((codes) => codes.split(",").filter(Boolean))
  .pipe(z.array(z.string().regex(/^[\w-]{1,32}$/)).max(32));
const schemas = {
  "two-factor-enable": z.object({ password }),
  "two-factor-disable": z.object({ password }),
  "two-factor-verify": z.object({
    code: z.string().trim().min(1, "Enter the code.").max(16),
    totpURI: z.string().max(1000).startsWith("otpauth://totp/"),
    backupCodes,
  }),
};

/** What the page shows while the code is not confirmed yet; the QR code drawn here, not in the bundle. */
async function enrolmentOf(totpURI: string, codes: string[]): Promise<TwoFactorEnrolment> {
  const svg = await qrCodeSvg(totpURI);
  return {
    qr: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
    secret: new URL(totpURI).searchParams.get("secret") ?? "",
    totpURI,
    backupCodes: codes,
  };
}

/** better-auth's refusal with its own message (or the fallback), and the enrolment to show again. */
function refused(
  intent: TwoFactorIntent,
  answer: AuthAnswer,
  fallback: string,
  enrolment?: TwoFactorEnrolment,
) {
  const message =
    typeof answer.body.message === "string" && answer.body.message ? answer.body.message : fallback;
  const status = answer.status >= 400 && answer.status < 500 ? answer.status : 400;
  return data<TwoFactorAnswer>(
    { ok: false, intent, error: "Refused", message, enrolment },
    { status, headers: withAuthCookies(answer.cookies) },
  );
}

const TURNED_ON: Flash = { type: "success", title: "Two-factor authentication is on" };
const TURNED_OFF: Flash = { type: "success", title: "Two-factor authentication is off" };

async function run(args: Route.ActionArgs, intent: TwoFactorIntent, form: FormData) {
  const fields = Object.fromEntries([...form].filter(([name]) => name !== "intent"));
  switch (intent) {
    case "two-factor-enable": {
      const input = parseInput(schemas[intent], fields);
      const answer = await authPost(args, "two-factor/enable", input);
      if (!answer.ok) return refused(intent, answer, "Could not turn on two-factor authentication");
      const codes = Array.isArray(answer.body.backupCodes) ? answer.body.backupCodes.map(String) : [];
      const enrolment = await enrolmentOf(String(answer.body.totpURI), codes);
      return data<TwoFactorAnswer>(
        { ok: true, intent, enrolment },
        { headers: withAuthCookies(answer.cookies) },
      );
    }
    case "two-factor-verify": {
      const input = parseInput(schemas[intent], fields);
      const answer = await authPost(args, "two-factor/verify-totp", { code: input.code });
      if (!answer.ok) {
        const enrolment = await enrolmentOf(input.totpURI, input.backupCodes);
        return refused(intent, answer, "That code did not match", enrolment);
      }
      const headers = withAuthCookies(answer.cookies, flashCookie(args.context.services, TURNED_ON));
      // better-auth replaced the session: a script-less post's page would be rendered with the old
      // one, so it gets a fresh page instead (the backup codes were on screen with the QR code).
      if (args.request.headers.get("sec-fetch-mode") === "navigate") throw redirect(ADMIN_BLOG, { headers });
      return data<TwoFactorAnswer>(
        { ok: true, intent, message: TURNED_ON.title, backupCodes: input.backupCodes },
        { headers },
      );
    }
    case "two-factor-disable": {
      // better-auth's own endpoint refuses while STAFF_REQUIRE_TOTP holds (auth.ts), for every caller.
      const input = parseInput(schemas[intent], fields);
      const answer = await authPost(args, "two-factor/disable", input);
      if (!answer.ok) return refused(intent, answer, "Could not turn off two-factor authentication");
      throw redirect(ADMIN_BLOG, {
        headers: withAuthCookies(answer.cookies, flashCookie(args.context.services, TURNED_OFF)),
      });
    }
  }
}

export const isTwoFactorIntent = (intent: unknown): intent is TwoFactorIntent =>
  typeof intent === "string" && Object.hasOwn(schemas, intent);

/** The enrolment's posts: staff, or staff who must enrol before anything else (`STAFF_REQUIRE_TOTP`). */
export function twoFactorAction(args: Route.ActionArgs) {
  return enrolmentFormAction(args, async (form) => {
    const intent = form.get("intent");
    if (!isTwoFactorIntent(intent))
      throw badRequest("This form asks for an action this page does not offer.");
    return run(args, intent, form);
  });
}
