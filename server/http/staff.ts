import type { z, ZodType } from "zod";
import { staffAccess, type StaffUser } from "#server/domain/auth/staff.ts";
import type { AppServices } from "#server/services.ts";
import {
  forbidden,
  handleApi,
  methodNotAllowed,
  parseInput,
  readJsonBody,
  unauthorized,
  type ApiCall,
} from "./api.ts";

export const ENROL_TWO_FACTOR_FIRST =
  "Set up two-factor authentication on /admin/blog before using the admin area: staff accounts require it.";

/**
 * The server-side gate of every admin call (DESIGN.md §2): a signed-in, e-mail-verified
 * user on the staff list (enrolled in TOTP when `STAFF_REQUIRE_TOTP` is on), or an
 * `ApiError` 401 (no session) / 403 (anyone else).
 */
export async function requireStaff(
  request: Request,
  services: Pick<AppServices, "auth" | "config">,
): Promise<StaffUser> {
  const access = await staffAccess(request, services);
  switch (access.kind) {
    case "staff":
      return access.user;
    case "anonymous":
      throw unauthorized("Please sign in with a staff account first.");
    case "unverified":
      throw forbidden("Confirm your e-mail address before using the admin area.");
    case "not-staff":
      throw forbidden("You don't have permission to access this page.");
    case "needs-two-factor":
      throw forbidden(ENROL_TWO_FACTOR_FIRST);
  }
}

/**
 * `jsonEndpoint` for staff: the permission check runs before the body is even read,
 * so a caller without access learns nothing from validation messages.
 */
export function staffEndpoint<S extends ZodType>(
  schema: S,
  handler: (input: z.infer<S>, staff: StaffUser, call: ApiCall) => Promise<unknown>,
) {
  return (call: ApiCall) =>
    handleApi(call, async () => {
      if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
      const staff = await requireStaff(call.request, call.context.services);
      const input = parseInput(schema, await readJsonBody(call.request)) as z.infer<S>;
      return handler(input, staff, call);
    });
}
