import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import { Skeleton } from "#app/components/ui/skeleton.tsx";
import { formatUsd } from "#core/format.ts";
import { DEFAULT_PLAN_ID, findPlan, type Plan } from "#core/plans.ts";

/** docs/product.md §3.2: the monthly price times the duration when the plan is monthly and runs longer than a month. */
export function orderTotalCents(plan: Plan): number {
  return plan.period === "/month" && plan.duration > 1
    ? Math.round(plan.priceCents * plan.duration)
    : plan.priceCents;
}

/** The plan shown when none is stored: Basic Monthly at $4.99. */
export const DEFAULT_ORDER_PLAN = findPlan(DEFAULT_PLAN_ID)!;

export function OrderSummary({ ready, plan }: { ready: boolean; plan: Plan | null }) {
  const shown = plan ?? DEFAULT_ORDER_PLAN;
  return (
    <Card aria-busy={!ready} data-testid="order-summary">
      <CardHeader>
        <CardTitle>Order Summary</CardTitle>
      </CardHeader>
      <CardContent>
        {!ready ? (
          <div className="flex flex-col gap-3">
            <Skeleton className="h-5 w-40" />
            <Skeleton className="h-5 w-24" />
          </div>
        ) : (
          <dl className="flex flex-col gap-3 text-sm">
            <div className="flex justify-between gap-4">
              <dt>{shown.name}</dt>
              <dd>
                {shown.price}
                {shown.period === "one-time" ? " one-time" : shown.period}
              </dd>
            </div>
            <div className="flex justify-between gap-4 text-muted-foreground">
              <dt>Devices</dt>
              <dd>{shown.devices}</dd>
            </div>
            <div className="flex justify-between gap-4 border-t pt-3 text-base font-semibold">
              <dt>Total</dt>
              <dd data-testid="order-total">{formatUsd(orderTotalCents(shown))}</dd>
            </div>
            <p className="text-xs text-muted-foreground">
              7-Day Guarantee: a full refund if you cannot access the sites you want within 7 days and have
              not used significant data.
            </p>
          </dl>
        )}
      </CardContent>
    </Card>
  );
}
