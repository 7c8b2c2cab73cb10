import { customerOf } from "#server/domain/account/customer-auth.ts";
import type { AppServices } from "#server/services.ts";

/** `admin`: everything; `editor`: the blog only. */
export type StaffRole = "admin" | "editor";

export interface StaffUser {
  id: string;
  email: string;
  name: string;
  twoFactorEnabled: boolean;
}

export interface SignedInStaff extends StaffUser {
  role: StaffRole;
}

/**
 * Who is asking, as far as the admin area is concerned. "needs-two-factor": staff who must enrol
 * TOTP first (`STAFF_REQUIRE_TOTP`) and may reach nothing but the enrolment.
 */
export type StaffAccess =
  | { kind: "anonymous" }
  /** No staff session, but a customer's: signed in, and refused. */
  | { kind: "customer" }
  | { kind: "unverified"; user: StaffUser }
  | { kind: "not-staff"; user: StaffUser }
  | { kind: "needs-two-factor"; user: StaffUser }
  | { kind: "staff"; user: SignedInStaff };

export function staffRoleOf(
  config: Pick<AppServices["config"], "STAFF_ADMINS" | "STAFF_EDITORS">,
  email: string,
): StaffRole | null {
  const address = email.trim().toLowerCase();
  if (config.STAFF_ADMINS.includes(address)) return "admin";
  if (config.STAFF_EDITORS.includes(address)) return "editor";
  return null;
}

type StaffAccessServices = Pick<AppServices, "auth" | "config" | "customerAuth">;

/** One answer per request: an admin page's layout loader and its own loader ask in parallel. */
const accessByRequest = new WeakMap<Request, Promise<StaffAccess>>();

/** Reads the session from the cookie or an `Authorization: Bearer` token, once per request. */
export function staffAccess(request: Request, services: StaffAccessServices): Promise<StaffAccess> {
  let access = accessByRequest.get(request);
  if (!access) {
    access = readStaffAccess(request, services);
    accessByRequest.set(request, access);
  }
  return access;
}

async function readStaffAccess(request: Request, services: StaffAccessServices): Promise<StaffAccess> {
  const found = await services.auth.api.getSession({ headers: request.headers });
  if (!found) {
    const customer = await customerOf(services.customerAuth, request);
    return customer ? { kind: "customer" } : { kind: "anonymous" };
  }
  const user: StaffUser = {
    id: found.user.id,
    email: found.user.email,
    name: found.user.name,
    twoFactorEnabled: Boolean(found.user.twoFactorEnabled),
  };
  if (!found.user.emailVerified) return { kind: "unverified", user };
  const role = staffRoleOf(services.config, user.email);
  if (!role) return { kind: "not-staff", user };
  if (services.config.STAFF_REQUIRE_TOTP && !user.twoFactorEnabled) return { kind: "needs-two-factor", user };
  return { kind: "staff", user: { ...user, role } };
}
