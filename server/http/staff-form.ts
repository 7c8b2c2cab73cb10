import { data, redirect } from "react-router";
import type { z, ZodType } from "zod";
import { flashCookie } from "#server/http/flash.ts";
import type { SignedInStaff, StaffRole, StaffUser } from "#server/domain/auth/staff.ts";
import { CLIENT_IP_HEADER } from "#server/domain/auth/auth.ts";
import { DomainError } from "#server/domain/errors.ts";
import {
  ApiError,
  badRequest,
  forbidden,
  methodNotAllowed,
  parseInput,
  statusOf,
  type ApiCall,
} from "./api.ts";
import { requireStaff, requireStaffOrEnrolling } from "./staff.ts";

export type FormRefusal = { ok: false; error: string; message: string };
export type FormActionResult<T> = { ok: true; result: T } | FormRefusal;

/**
 * The frame of a staff page's route `action` (a `<Form>` or `<fetcher.Form>`, with or without
 * JavaScript): POST only, posted from this site's own pages (`Sec-Fetch-Site`, on top of the
 * session cookie's SameSite=Lax), the same guard as /api/admin/* before the body is read; the
 * domain's refusals come back as `{ ok: false, error, message }` with their 4xx status.
 */
async function guardedFormAction<U, T>(
  call: ApiCall,
  gate: (call: ApiCall) => Promise<U>,
  handler: (form: FormData, user: U) => Promise<T>,
) {
  try {
    if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
    const site = call.request.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin") throw forbidden("Send this form from the site's own page.");
    const user = await gate(call);
    const form = await call.request.formData().catch(() => {
      throw new ApiError(415, "Unsupported media type", "Send the form as form data.");
    });
    return await handler(form, user);
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof DomainError)) throw error;
    const { status, headers } = statusOf(error);
    return data<FormRefusal>(
      { ok: false, error: error.error, message: error.message },
      { status, headers: { "Cache-Control": "no-store", ...headers } },
    );
  }
}

const staffOf = (role: StaffRole) => (call: ApiCall) =>
  requireStaff(call.request, call.context.services, role);

/** The two-factor enrolment's forms: staff who must enrol before anything else may post them too. */
export function enrolmentFormAction<T>(
  call: ApiCall,
  handler: (form: FormData, user: StaffUser) => Promise<T>,
) {
  return guardedFormAction(call, (c) => requireStaffOrEnrolling(c.request, c.context.services), handler);
}

/** A staff page's action with one schema for every post (e.g. the servers' client settings). */
export async function staffFormAction<S extends ZodType, T>(
  call: ApiCall,
  role: StaffRole,
  schema: S,
  handler: (input: z.infer<S>, staff: SignedInStaff) => Promise<T>,
) {
  return guardedFormAction(call, staffOf(role), async (form, staff) => {
    const input = parseInput(schema, Object.fromEntries(form)) as z.infer<S>;
    return data<FormActionResult<T>>({ ok: true, result: await handler(input, staff) });
  });
}

/** One kind of post of a page (its `intent` field): the JSON endpoint's schema and domain call. */
export interface StaffIntent<S extends ZodType = ZodType, T = unknown> {
  schema: S;
  /** The schema's input from the form; by default its filled-in fields, trimmed, without `intent`. */
  fromForm?: (form: FormData) => unknown;
  run: (input: z.infer<S>, staff: SignedInStaff) => Promise<T>;
  /** What the page says when it worked (a toast, or the page's notice without JavaScript). */
  done: string | ((result: T) => string);
  /** The toast's title when `done` is its description (the blog admin's "Success", docs/product.md §9.3). */
  toastTitle?: string;
  /** Where a success sends the browser (the toast follows as a flash, with or without JavaScript). */
  redirectTo?: string;
}

/** Declares an intent with its types inferred from the schema. */
export const staffIntent = <S extends ZodType, T>(intent: StaffIntent<S, T>) =>
  intent as unknown as StaffIntent;

export type IntentResult<T = unknown> = { ok: true; intent: string; done: string; result: T } | FormRefusal;

/** The form's filled-in fields but `intent`, trimmed: what a JSON caller would send. */
export function filledFields(form: FormData): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of form) {
    if (name === "intent" || typeof value !== "string" || !value.trim()) continue;
    fields[name] = value.trim();
  }
  return fields;
}

/**
 * A staff page's action offering several posts, told apart by the form's `intent`; each parses
 * with the same zod schema as its /api/admin/* or /api/blog-admin/* endpoint and makes the same
 * domain call, so the page and the bearer API cannot drift apart.
 */
export function staffIntentAction(call: ApiCall, role: StaffRole, intents: Record<string, StaffIntent>) {
  return guardedFormAction(call, staffOf(role), async (form, staff) => {
    const name = String(form.get("intent") ?? "");
    const intent = Object.hasOwn(intents, name) ? intents[name] : undefined;
    if (!intent) throw badRequest("This form asks for an action this page does not offer.");
    const input = parseInput(intent.schema, (intent.fromForm ?? filledFields)(form));
    const result = await intent.run(input, staff);
    const done = typeof intent.done === "string" ? intent.done : intent.done(result);
    // With JavaScript the success is toasted by the layout from the flash the revalidation reads:
    // the form that posted may be gone by then (a revoked device loses its buttons). A document
    // post (no JavaScript) shows the page's notice instead, so it leaves no flash behind.
    const navigating = !intent.redirectTo && call.request.headers.get("sec-fetch-mode") === "navigate";
    const headers = navigating
      ? undefined
      : {
          "Set-Cookie": flashCookie(
            call.context.services,
            intent.toastTitle
              ? { type: "success", title: intent.toastTitle, description: done }
              : { type: "success", title: done },
          ),
        };
    if (intent.redirectTo) throw redirect(intent.redirectTo, { headers });
    return data<IntentResult>({ ok: true, intent: name, done, result }, { headers });
  });
}

export interface AuthAnswer {
  ok: boolean;
  status: number;
  body: Record<string, unknown>;
  cookies: string[];
}

/** An answer's headers passing better-auth's cookies on, and a flash for the next page if any (`flashCookie`). */
export function withAuthCookies(cookies: string[], flash?: string): Headers {
  const headers = new Headers({ "Cache-Control": "no-store" });
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  if (flash) headers.append("Set-Cookie", flash);
  return headers;
}

/** POSTs `body` to better-auth's `path` for this browser: its cookies, its address, this site's origin. */
export async function authPost(
  { request, context }: Pick<ApiCall, "request" | "context">,
  path: string,
  body: object,
): Promise<AuthAnswer> {
  const { config, auth } = context.services;
  const headers = new Headers({ "content-type": "application/json", origin: config.PUBLIC_URL });
  for (const name of ["cookie", "user-agent", "accept-language"]) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  headers.set(CLIENT_IP_HEADER, context.clientIp);
  const response = await auth.handler(
    new Request(`${config.PUBLIC_URL}/api/auth/${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    }),
  );
  const answer = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  return {
    ok: response.ok,
    status: response.status,
    body: answer ?? {},
    cookies: response.headers.getSetCookie(),
  };
}
