import type { StaffRole } from "#server/domain/auth/staff.ts";

export const ADMIN_LAYOUT_ROUTE_ID = "routes/admin-layout";

export interface AdminSection {
  label: string;
  to: string;
  /** The least role that may open it: editors reach the blog only. */
  role: StaffRole;
}

/** The console's sections, in the order of the navigation. */
export const ADMIN_SECTIONS: readonly AdminSection[] = [
  { label: "Dashboard", to: "/admin", role: "admin" },
  { label: "Orders", to: "/admin/orders", role: "admin" },
  { label: "Subscriptions", to: "/admin/subscriptions", role: "admin" },
  { label: "Servers", to: "/admin/servers", role: "admin" },
  { label: "Messages", to: "/admin/messages", role: "admin" },
  { label: "Blog", to: "/admin/blog", role: "editor" },
  { label: "Audit log", to: "/admin/audit", role: "admin" },
];

export function sectionsFor(role: StaffRole | null): AdminSection[] {
  if (role === "admin") return [...ADMIN_SECTIONS];
  return ADMIN_SECTIONS.filter((section) => section.role === "editor");
}
