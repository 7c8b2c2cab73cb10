import type { AppServices } from "#server/services.ts";

export interface StaffUser {
  id: string;
  email: string;
  name: string;
  twoFactorEnabled: boolean;
}

/**
 * Who is asking, as far as the admin area is concerned. "needs-two-factor": staff who must enrol
 * TOTP first (`STAFF_REQUIRE_TOTP`) and may reach nothing but the enrolment.
 */
export type StaffAccess =
  | { kind: "anonymous" }
  | { kind: "unverified"; user: StaffUser }
  | { kind: "not-staff"; user: StaffUser }
  | { kind: "needs-two-factor"; user: StaffUser }
  | { kind: "staff"; user: StaffUser };

export function isStaffEmail(services: Pick<AppServices, "config">, email: string): boolean {
  return services.config.STAFF_EMAILS.includes(email.trim().toLowerCase());
}

/** Reads the session from the cookie or an `Authorization: Bearer` token. */
export async function staffAccess(
  request: Request,
  services: Pick<AppServices, "auth" | "config">,
): Promise<StaffAccess> {
  const found = await services.auth.api.getSession({ headers: request.headers });
  if (!found) return { kind: "anonymous" };
  const user: StaffUser = {
    id: found.user.id,
    email: found.user.email,
    name: found.user.name,
    twoFactorEnabled: Boolean(found.user.twoFactorEnabled),
  };
  if (!found.user.emailVerified) return { kind: "unverified", user };
  if (!isStaffEmail(services, user.email)) return { kind: "not-staff", user };
  if (services.config.STAFF_REQUIRE_TOTP && !user.twoFactorEnabled) return { kind: "needs-two-factor", user };
  return { kind: "staff", user };
}
