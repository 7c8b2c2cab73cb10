import { Clock, ShieldCheck } from "lucide-react";
import { PlanCard } from "#app/components/plan-card.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { PLANS, type Plan } from "#core/plans.ts";

/** "$95.88" and "$79.99" → "Save $16": the dollar reading of the yearly discount (docs/product.md §3.2). */
export function dollarSaving(plan: Plan): string | null {
  if (!plan.originalPrice) return null;
  const original = Number(plan.originalPrice.replace(/[^0-9.]/g, ""));
  const saved = Math.round(original - plan.priceCents / 100);
  return saved > 0 ? `Save $${saved}` : null;
}

/**
 * The four plan cards, each with a button that the enhancement script turns into
 * "store the plan, optionally show `notice`, then open /get-started/details". Without
 * JavaScript the button posts its plan to /get-started's action, which keeps it and goes on to
 * the details step.
 */
export function PlanGrid({
  buttonLabel,
  notice,
  guarantees = false,
  ordersPaused = false,
}: {
  buttonLabel: string;
  /** No plan can be bought now: the buttons say so and lead nowhere. */
  ordersPaused?: boolean;
  notice?: { title: string; description: string };
  /** The pricing page's per-card promises (docs/product.md §2.4). */
  guarantees?: boolean;
}) {
  return (
    <ul className="grid gap-8 pt-3 sm:grid-cols-2 lg:grid-cols-4" aria-label="Plans">
      {PLANS.map((plan) => (
        <li key={plan.id} className="flex">
          <PlanCard plan={plan} extraSaving={guarantees ? dollarSaving(plan) : null}>
            {guarantees ? (
              <ul className="flex flex-col gap-1 border-t pt-4 text-sm text-muted-foreground">
                <li className="flex items-center gap-2">
                  <ShieldCheck aria-hidden="true" className="size-4 text-primary" />
                  7-Day Guarantee
                </li>
                <li className="flex items-center gap-2">
                  <Clock aria-hidden="true" className="size-4 text-primary" />
                  Instant Setup Delivery
                </li>
              </ul>
            ) : null}
            {ordersPaused ? (
              <Button type="button" className="w-full" variant="outline" disabled>
                Orders paused
              </Button>
            ) : (
              <form method="post" action="/get-started" className="w-full">
                <Button
                  type="submit"
                  name="planId"
                  value={plan.id}
                  className="w-full"
                  variant={plan.popular ? "default" : "outline"}
                  data-select-plan={plan.id}
                  data-next="/get-started/details"
                  data-notice-title={notice?.title}
                  data-notice-description={notice?.description}
                >
                  {buttonLabel}
                </Button>
              </form>
            )}
          </PlanCard>
        </li>
      ))}
    </ul>
  );
}
