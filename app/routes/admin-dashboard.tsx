import { Link } from "react-router";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { DailyBarChart } from "#app/components/admin/daily-bar-chart.tsx";
import { BooksPanel } from "#app/components/admin/books-panel.tsx";
import { OrderSearch } from "#app/components/admin/order-search.tsx";
import { formatUsd } from "#core/format.ts";
import { adminPageMeta } from "#app/lib/meta.ts";
import { reconciliationStatus } from "#server/domain/billing/reconciliation.ts";
import { dashboardFigures, type DashboardWindow, type WindowFigures } from "#server/domain/ops/dashboard.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-dashboard";

export const meta: Route.MetaFunction = ({ matches }) => adminPageMeta("Dashboard", "/admin", matches);

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, config } = context.services;
  await requireStaffPage(request, context.services, "admin");
  return { ...(await dashboardFigures(db)), books: await reconciliationStatus(db, config) };
}

// Values from server modules stay out of the component: only the loader may touch them.
const WINDOW_LABELS: Record<DashboardWindow, string> = {
  today: "Today",
  last7Days: "7 days",
  last30Days: "30 days",
};
const WINDOWS = Object.keys(WINDOW_LABELS) as DashboardWindow[];

const WINDOW_ROWS: { label: string; value: (figures: WindowFigures) => string }[] = [
  { label: "Paid orders", value: (figures) => String(figures.paidOrders) },
  { label: "Gross revenue (USD)", value: (figures) => formatUsd(figures.grossRevenueCents) },
  { label: "Credited (USD)", value: (figures) => formatUsd(figures.creditedCents) },
  { label: "Refunded (USD)", value: (figures) => formatUsd(figures.refundedCents) },
  { label: "Disputed (USD)", value: (figures) => formatUsd(figures.disputedCents) },
  { label: "Net revenue (USD)", value: (figures) => formatUsd(figures.revenueCents) },
  { label: "New subscriptions", value: (figures) => String(figures.newSubscriptions) },
  { label: "Cancellations", value: (figures) => String(figures.cancellations) },
  { label: "Refunds", value: (figures) => String(figures.refunds) },
  { label: "Devices issued", value: (figures) => String(figures.devicesIssued) },
];

export default function AdminDashboard({ loaderData: figures }: Route.ComponentProps) {
  const plans = [
    ...new Map(figures.windows.last30Days.revenueByPlan.map((plan) => [plan.planId, plan.planName] as const)),
  ];
  return (
    <section className="px-4 py-8 md:px-8">
      <h1 className="text-2xl font-bold">Dashboard</h1>
      <p className="mt-1 text-sm text-muted-foreground">
        As of {figures.asOf.slice(0, 16).replace("T", " ")} UTC; days are UTC days.
      </p>
      <OrderSearch
        results="orders"
        action="/admin/orders"
        query=""
        hiddenFields={{ status: "all" }}
        initial={null}
      />

      <h2 className="mt-8 text-lg font-semibold">Right now</h2>
      <dl className="mt-3 grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label="Active subscriptions" value={String(figures.activeSubscriptions)} />
        <Figure
          label="Waiting at Configuration Pending"
          value={String(figures.configurationPending)}
          alert={figures.configurationPending > 0}
        />
        <Figure
          label="VPN servers up / down"
          value={`${figures.servers.up} / ${figures.servers.down}`}
          alert={figures.servers.down > 0}
          link={{ to: "/admin/servers", text: "Servers" }}
        />
        <Figure
          label="Outbox pending / failed"
          value={`${figures.outbox.pending} / ${figures.outbox.failed}`}
          alert={figures.outbox.failed > 0}
        />
      </dl>

      <BooksPanel books={figures.books} />

      <h2 className="mt-8 text-lg font-semibold">Sales and subscriptions</h2>
      <ScrollRegion label="Sales and subscriptions" className="mt-3">
        <table className="w-full text-left text-sm">
          <thead className="border-b text-xs uppercase text-muted-foreground">
            <tr>
              <th className="py-2 pr-4">
                <span className="sr-only">Figure</span>
              </th>
              {WINDOWS.map((window) => (
                <th key={window} scope="col" className="py-2 pr-4 text-right">
                  {WINDOW_LABELS[window]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {WINDOW_ROWS.map((row) => (
              <tr key={row.label} className="border-b">
                <th scope="row" className="py-2 pr-4 font-normal">
                  {row.label}
                </th>
                {WINDOWS.map((window) => (
                  <td key={window} className="py-2 pr-4 text-right tabular-nums">
                    {row.value(figures.windows[window])}
                  </td>
                ))}
              </tr>
            ))}
            {plans.map(([planId, planName]) => (
              <tr key={planId} className="border-b text-muted-foreground">
                <th scope="row" className="py-2 pl-4 pr-4 font-normal">
                  {planName} gross revenue
                </th>
                {WINDOWS.map((window) => {
                  const plan = figures.windows[window].revenueByPlan.find((entry) => entry.planId === planId);
                  return (
                    <td key={window} className="py-2 pr-4 text-right tabular-nums">
                      {formatUsd(plan?.revenueCents ?? 0)} ({plan?.orders ?? 0})
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>

      <div className="mt-8 max-w-2xl">
        <DailyBarChart
          title="Paid orders per day, last 30 days"
          unit="orders"
          bars={figures.paidOrdersByDay.map((day) => ({ day: day.day, value: day.orders }))}
        />
      </div>
    </section>
  );
}

function Figure({
  label,
  value,
  alert = false,
  link,
}: {
  label: string;
  value: string;
  alert?: boolean;
  link?: { to: string; text: string };
}) {
  return (
    <div className={`rounded-lg border p-4 ${alert ? "border-amber-500 bg-amber-50" : ""}`}>
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="mt-1 text-2xl font-bold tabular-nums">{value}</dd>
      {link ? (
        <dd className="mt-1 text-sm">
          <Link className="underline" to={link.to}>
            {link.text}
          </Link>
        </dd>
      ) : null}
    </div>
  );
}
