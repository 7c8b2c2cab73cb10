import { ExportForm } from "#app/components/admin/export-form.tsx";
import { OrderSearch } from "#app/components/admin/order-search.tsx";
import { StatusTabs } from "#app/components/admin/status-tabs.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import type { CheckoutStatus } from "#server/db/schema/index.ts";
import { findOrders, orderListSchema } from "#server/domain/ops/order-search.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-orders";

export const meta: Route.MetaFunction = ({ matches }) => adminPageMeta("Orders", "/admin/orders", matches);

const STATUS_OPTIONS = [
  { value: "paid", label: "Paid" },
  { value: "all", label: "All" },
  { value: "open", label: "Not paid" },
  { value: "expired", label: "Expired" },
  { value: "amount_mismatch", label: "Amount differs" },
] as const satisfies readonly { value: CheckoutStatus | "all"; label: string }[];

/** Checkout sessions newest first; paid ones unless told otherwise (?status=all). */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  const params = new URL(request.url).searchParams;
  const status = params.get("status") ?? "paid";
  const q = params.get("q")?.trim() ?? "";
  const query = orderListSchema.safeParse({
    q: q || undefined,
    orderStatus: status === "all" ? undefined : status,
    page: Number(params.get("page") ?? "1") || 1,
    after: params.get("after") || undefined,
    before: params.get("before") || undefined,
  });
  return {
    today: new Date().toISOString().slice(0, 10),
    q,
    status,
    orderStatus: query.data?.orderStatus,
    invalid: !query.success,
    orders: query.success ? await findOrders(context.services.db, query.data) : null,
  };
}

export default function AdminOrders({ loaderData }: Route.ComponentProps) {
  const { today, q, status, invalid, orders } = loaderData;
  return (
    <section className="px-4 py-8 md:px-8">
      <h1 className="text-2xl font-bold">Orders</h1>
      <p className="mt-1 text-sm text-muted-foreground">Checkout sessions, newest first.</p>
      <StatusTabs
        label="Order status"
        options={STATUS_OPTIONS}
        current={status}
        hrefFor={(value) => `/admin/orders?${new URLSearchParams({ status: value, ...(q ? { q } : {}) })}`}
      />
      {invalid ? (
        <p role="alert" className="mt-4 text-sm text-destructive">
          This search is not valid: type at most 200 characters, and pick a status from the list.
        </p>
      ) : null}
      <OrderSearch
        results="orders"
        key={`${status}:${q}`}
        action="/admin/orders"
        query={q}
        hiddenFields={{ status }}
        initial={orders}
      />
      <ExportForm kind="orders" today={today} />
      <ExportForm kind="ledger" today={today} />
    </section>
  );
}
