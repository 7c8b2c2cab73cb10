import { data } from "react-router";
import type { z, ZodType } from "zod";
import type { SignedInStaff, StaffRole } from "#server/domain/auth/staff.ts";
import { DomainError } from "#server/domain/errors.ts";
import { ApiError, forbidden, methodNotAllowed, parseInput, statusOf, type ApiCall } from "./api.ts";
import { requireStaff } from "./staff.ts";

export type FormActionResult<T> = { ok: true; result: T } | { ok: false; error: string; message: string };

/**
 * A staff page's route `action` for a `<fetcher.Form>` (form data, not JSON): the role check
 * before the body is read, one schema, the domain's refusals as `{ ok: false, error, message }`
 * with their status. A browser's post must come from a page of this site (`Sec-Fetch-Site`),
 * on top of the session cookie's SameSite=Lax.
 */
export async function staffFormAction<S extends ZodType, T>(
  call: ApiCall,
  role: StaffRole,
  schema: S,
  handler: (input: z.infer<S>, staff: SignedInStaff) => Promise<T>,
) {
  try {
    if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
    const site = call.request.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin") throw forbidden("Send this form from the site's own page.");
    const staff = await requireStaff(call.request, call.context.services, role);
    const form = await call.request.formData().catch(() => {
      throw new ApiError(415, "Unsupported media type", "Send the form as form data.");
    });
    const input = parseInput(schema, Object.fromEntries(form)) as z.infer<S>;
    return data<FormActionResult<T>>({ ok: true, result: await handler(input, staff) });
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof DomainError)) throw error;
    const { status, headers } = statusOf(error);
    return data<FormActionResult<T>>(
      { ok: false, error: error.error, message: error.message },
      { status, headers: { "Cache-Control": "no-store", ...headers } },
    );
  }
}
