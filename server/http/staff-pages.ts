import { data, redirect } from "react-router";
import { flashCookie, type Flash } from "#app/lib/flash.ts";
import { staffAccess, type SignedInStaff, type StaffRole } from "#server/domain/auth/staff.ts";
import type { AppServices } from "#server/services.ts";
import { ROLE_NOT_ALLOWED } from "./staff.ts";

export const ACCESS_DENIED: Flash = {
  type: "error",
  title: "Access Denied",
  description: "You don't have permission to access this page.",
};

/**
 * The gate of every /admin page loader but the blog list (which also hosts two-factor enrolment):
 * signed out → the login page; signed in but not staff → home, told so there (spec §6); staff who
 * must enrol two-factor first → the blog list, where the enrolment is; an editor on an admin page
 * → 403 inside the admin shell.
 */
export async function requireStaffPage(
  request: Request,
  services: Pick<AppServices, "auth" | "config" | "customerAuth">,
  role: StaffRole,
): Promise<SignedInStaff> {
  const access = await staffAccess(request, services);
  switch (access.kind) {
    case "anonymous":
      throw redirect("/admin/login");
    case "customer":
    case "unverified":
    case "not-staff":
      throw redirect("/", { headers: { "Set-Cookie": flashCookie(ACCESS_DENIED) } });
    case "needs-two-factor":
      throw redirect("/admin/blog");
    case "staff":
      if (role === "admin" && access.user.role !== "admin")
        throw data({ message: ROLE_NOT_ALLOWED }, { status: 403 });
      return access.user;
  }
}
