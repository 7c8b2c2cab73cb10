import type { z, ZodType } from "zod";
import {
  staffAccess,
  type SignedInStaff,
  type StaffRole,
  type StaffUser,
} from "#server/domain/auth/staff.ts";
import type { AppServices } from "#server/services.ts";
import {
  forbidden,
  handleApi,
  methodNotAllowed,
  parseInput,
  readFormFields,
  readJsonBody,
  unauthorized,
  type ApiCall,
} from "./api.ts";

export const ENROL_TWO_FACTOR_FIRST =
  "Set up two-factor authentication on /admin/blog before using the admin area: staff accounts require it.";

export const ROLE_NOT_ALLOWED = "Your staff role does not include this part of the admin area.";

/**
 * The server-side gate of every admin call (docs/product.md §9.2): a signed-in, e-mail-verified
 * user on the staff list (enrolled in TOTP when `STAFF_REQUIRE_TOTP` is on) whose role
 * covers `role` (an admin covers both), or an `ApiError` 401 (no session) / 403 (anyone else).
 */
export async function requireStaff(
  request: Request,
  services: Pick<AppServices, "auth" | "config" | "customerAuth">,
  role: StaffRole = "editor",
): Promise<SignedInStaff> {
  const access = await staffAccess(request, services);
  switch (access.kind) {
    case "staff":
      if (role === "admin" && access.user.role !== "admin") throw forbidden(ROLE_NOT_ALLOWED);
      return access.user;
    case "anonymous":
      throw unauthorized("Please sign in with a staff account first.");
    case "customer":
      throw forbidden("A customer account has no access to the admin area.");
    case "unverified":
      throw forbidden("Confirm your e-mail address before using the admin area.");
    case "not-staff":
      throw forbidden("You don't have permission to access this page.");
    case "needs-two-factor":
      throw forbidden(ENROL_TWO_FACTOR_FIRST);
  }
}

/** Staff, or staff who must enrol two-factor first (`STAFF_REQUIRE_TOTP`): the enrolment's gate. */
export async function requireStaffOrEnrolling(
  request: Request,
  services: Pick<AppServices, "auth" | "config" | "customerAuth">,
): Promise<StaffUser> {
  const access = await staffAccess(request, services);
  if (access.kind === "needs-two-factor") return access.user;
  return requireStaff(request, services, "editor");
}

type StaffHandler<S extends ZodType> = (
  input: z.infer<S>,
  staff: SignedInStaff,
  call: ApiCall,
) => Promise<unknown>;

/**
 * `jsonEndpoint` for staff of `role`: the permission check runs before the body is even read,
 * so a caller without access learns nothing from validation messages.
 */
function endpointFor<S extends ZodType>(
  role: StaffRole,
  schema: S,
  handler: StaffHandler<S>,
  readBody: (request: Request) => Promise<unknown> = (request) => readJsonBody(request),
) {
  return (call: ApiCall) =>
    handleApi(call, async () => {
      if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
      const staff = await requireStaff(call.request, call.context.services, role);
      const input = parseInput(schema, await readBody(call.request)) as z.infer<S>;
      return handler(input, staff, call);
    });
}

/** An endpoint any staff member may call: the blog admin. */
export const staffEndpoint = <S extends ZodType>(schema: S, handler: StaffHandler<S>) =>
  endpointFor("editor", schema, handler);

/** An operations endpoint under /api/admin/*: admins only. */
export const adminEndpoint = <S extends ZodType>(schema: S, handler: StaffHandler<S>) =>
  endpointFor("admin", schema, handler);

/** An admin endpoint posted as a form (a download a plain `<form>` asks for, e.g. a CSV export). */
export const adminFormEndpoint = <S extends ZodType>(schema: S, handler: StaffHandler<S>) =>
  endpointFor("admin", schema, handler, readFormFields);
