import { ExportForm } from "#app/components/admin/export-form.tsx";
import { OrderSearch } from "#app/components/admin/order-search.tsx";
import { StatusTabs } from "#app/components/admin/status-tabs.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import type { SubscriptionStatus } from "#server/db/schema/index.ts";
import { findOrders, orderListSchema } from "#server/domain/ops/order-search.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-subscriptions";

export const meta: Route.MetaFunction = ({ matches }) =>
  adminPageMeta("Subscriptions", "/admin/subscriptions", matches);

const STATUS_OPTIONS = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "past_due", label: "Past due" },
  { value: "canceled", label: "Cancelled" },
  { value: "expired", label: "Expired" },
  { value: "refunded", label: "Refunded" },
  { value: "disputed", label: "Disputed" },
] as const satisfies readonly { value: SubscriptionStatus | "all"; label: string }[];

/** The orders that became subscriptions, newest first, by subscription status. */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  const params = new URL(request.url).searchParams;
  const status = params.get("status") ?? "all";
  const q = params.get("q")?.trim() ?? "";
  const query = orderListSchema.safeParse({
    q: q || undefined,
    subscriptionStatus: status === "all" ? undefined : status,
    withSubscription: true,
    page: Number(params.get("page") ?? "1") || 1,
    after: params.get("after") || undefined,
    before: params.get("before") || undefined,
  });
  return {
    today: new Date().toISOString().slice(0, 10),
    q,
    status,
    subscriptionStatus: query.data?.subscriptionStatus,
    invalid: !query.success,
    subscriptions: query.success ? await findOrders(context.services.db, query.data) : null,
  };
}

export default function AdminSubscriptions({ loaderData }: Route.ComponentProps) {
  const { today, q, status, invalid, subscriptions } = loaderData;
  return (
    <section className="px-4 py-8 md:px-8">
      <h1 className="text-2xl font-bold">Subscriptions</h1>
      <p className="mt-1 text-sm text-muted-foreground">
        Newest first; open one to see its devices and act on it.
      </p>
      <StatusTabs
        label="Subscription status"
        options={STATUS_OPTIONS}
        current={status}
        hrefFor={(value) =>
          `/admin/subscriptions?${new URLSearchParams({ status: value, ...(q ? { q } : {}) })}`
        }
      />
      {invalid ? (
        <p role="alert" className="mt-4 text-sm text-destructive">
          This search is not valid: type at most 200 characters, and pick a status from the list.
        </p>
      ) : null}
      <OrderSearch
        results="subscriptions"
        key={`${status}:${q}`}
        action="/admin/subscriptions"
        query={q}
        hiddenFields={{ status }}
        initial={subscriptions}
        emptyText="No subscriptions match."
      />
      <ExportForm kind="subscriptions" today={today} />
    </section>
  );
}
