import { isRouteErrorResponse, Link, Outlet, useRouteError, useRouteLoaderData } from "react-router";
import { AdminMenu, AdminNav, SignedInAs } from "#app/components/admin/admin-menu.tsx";
import { ADMIN_LAYOUT_ROUTE_ID } from "#app/components/admin/admin-nav.ts";
import { staffAccess } from "#server/domain/auth/staff.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import type { Route } from "./+types/admin-layout";

/**
 * The shell of every /admin page but the login. It refuses nobody itself: each page's loader
 * decides who it turns away and how (docs/product.md §9.2 fixes that for the blog pages), and loaders run in
 * parallel, so the frame only shows whom it greets and which sections their role opens.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const access = await staffAccess(request, context.services);
  if (access.kind === "staff")
    return {
      email: access.user.email,
      role: access.user.role,
      // Admins can fix it (decision 094); editors' pages stay as they are.
      salesStopped: access.user.role === "admin" && !(await anyServerCanTakeDevice(context.services.db)),
    };
  if (access.kind === "needs-two-factor")
    return { email: access.user.email, role: null, salesStopped: false };
  return { email: null, role: null, salesStopped: false };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AdminFrame email={loaderData.email} role={loaderData.role} salesStopped={loaderData.salesStopped}>
      <Outlet />
    </AdminFrame>
  );
}

function AdminFrame({
  email,
  role,
  salesStopped,
  children,
}: {
  email: string | null;
  role: "admin" | "editor" | null;
  salesStopped: boolean;
  children: React.ReactNode;
}) {
  const brand = useRouteLoaderData<{ publicConfig: { brandName: string } }>("root")?.publicConfig.brandName;
  const title = (
    <p className="font-bold">
      {brand} <span className="font-normal text-slate-400">staff</span>
    </p>
  );
  return (
    <div className="min-h-screen md:grid md:grid-cols-[14rem_1fr]">
      {/* A phone: a bar with the menu drawer. From md up: the sidebar. */}
      <header className="flex items-center justify-between gap-2 bg-slate-950 px-4 py-3 text-slate-100 md:hidden">
        {title}
        <AdminMenu email={email} role={role} />
      </header>
      <aside className="hidden bg-slate-950 text-slate-100 md:block md:min-h-screen md:border-r">
        <div className="px-4 py-4">{title}</div>
        <AdminNav role={role} />
        <SignedInAs email={email} role={role} />
      </aside>
      <div className="min-w-0">
        {salesStopped ? (
          <p role="alert" className="bg-red-700 px-4 py-3 font-semibold text-white md:px-8">
            Sales are stopped: no VPN server can take a device —{" "}
            <Link to="/admin/servers#sales-stopped" className="underline">
              why and how to fix
            </Link>
          </p>
        ) : null}
        {children}
      </div>
    </div>
  );
}

/** A page's refusal (an editor on an operations page) or failure, shown inside the shell. */
export function ErrorBoundary() {
  const error = useRouteError();
  const shell = useRouteLoaderData<typeof loader>(ADMIN_LAYOUT_ROUTE_ID);
  const forbidden = isRouteErrorResponse(error) && error.status === 403;
  const message = forbidden
    ? String((error.data as { message?: string } | undefined)?.message ?? "You don't have permission.")
    : "This page could not be loaded. Try again, or check the server log.";
  const body = (
    <section className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-2xl font-bold">
        {forbidden ? "Not available to your role" : "Something went wrong"}
      </h1>
      <p className="mt-4 text-muted-foreground">{message}</p>
    </section>
  );
  if (!shell) return body;
  return (
    <AdminFrame email={shell.email} role={shell.role} salesStopped={shell.salesStopped}>
      {body}
    </AdminFrame>
  );
}
