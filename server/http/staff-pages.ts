import { data, redirect, redirectDocument } from "react-router";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { staffAccess, type SignedInStaff, type StaffRole } from "#server/domain/auth/staff.ts";
import { DomainError } from "#server/domain/errors.ts";
import type { AppServices } from "#server/services.ts";
import { ApiError, readFormFields, statusOf } from "./api.ts";
import { ROLE_NOT_ALLOWED } from "./staff.ts";

export const ACCESS_DENIED: Flash = {
  type: "error",
  title: "Access Denied",
  description: "You don't have permission to access this page.",
};

/**
 * The gate of every /admin page loader but the blog list (which also hosts two-factor enrolment):
 * signed out → the login page; signed in but not staff → home, told so there (docs/product.md §9.2); staff who
 * must enrol two-factor first → the blog list, where the enrolment is; an editor on an admin page
 * → 403 inside the admin shell.
 */
export async function requireStaffPage(
  request: Request,
  services: Pick<AppServices, "auth" | "authSecret" | "config" | "customerAuth">,
  role: StaffRole,
): Promise<SignedInStaff> {
  const access = await staffAccess(request, services);
  switch (access.kind) {
    case "anonymous":
      throw redirect("/admin/login");
    case "customer":
    case "unverified":
    case "not-staff":
      // A document load of the static home page, where the server renders the message (decision 123).
      throw redirectDocument("/", { headers: { "Set-Cookie": flashCookie(services, ACCESS_DENIED) } });
    case "needs-two-factor":
      throw redirect("/admin/blog");
    case "staff":
      if (role === "admin" && access.user.role !== "admin")
        throw data({ message: ROLE_NOT_ALLOWED }, { status: 403 });
      return access.user;
  }
}

/** What a staff page's action answers when it refuses: shown by the form that was sent. */
export interface ActionRefusal {
  ok: false;
  error: string;
  message: string;
}

/**
 * The action of a staff page (a `<Form>` or `useFetcher` post, with or without JavaScript): the
 * page's own gate, then `run` with the form's fields. A refusal (bad input, unknown object, a
 * conflict) comes back as `{ ok: false, error, message }` with its 4xx status, for the form to show.
 */
export async function staffPageAction<T>(
  request: Request,
  services: Pick<AppServices, "auth" | "authSecret" | "config" | "customerAuth">,
  role: StaffRole,
  run: (staff: SignedInStaff, fields: Record<string, string>) => Promise<T>,
) {
  const staff = await requireStaffPage(request, services, role);
  try {
    return await run(staff, await readFormFields(request));
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof DomainError)) throw error;
    const refusal: ActionRefusal = { ok: false, error: error.error, message: error.message };
    return data(refusal, { status: statusOf(error).status });
  }
}
