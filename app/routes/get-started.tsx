import { useEffect, useState } from "react";
import { Link } from "react-router";
import { PlanCard } from "#app/components/plan-card.tsx";
import { PurchaseStepPage } from "#app/components/purchase/purchase-steps.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { PLANS, type Plan } from "#app/lib/plans.ts";
import { readSelectedPlan, storeSelectedPlan } from "#app/lib/purchase-storage.ts";
import type { Route } from "./+types/get-started";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Choose Plan", description: "Step 1 of 3: choose a NaijaLink plan.", path: "/get-started" },
    matches,
  );

export default function GetStarted() {
  const [selected, setSelected] = useState<Plan | null>(null);
  useEffect(() => setSelected(readSelectedPlan()), []);

  function choose(plan: Plan) {
    storeSelectedPlan(plan);
    setSelected(plan);
  }

  return (
    <PurchaseStepPage
      step={1}
      title="Choose Your Plan"
      intro="Pick the plan that fits you. Your config arrives the moment you pay."
      width="max-w-6xl"
    >
      <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {PLANS.map((plan) => {
          const isSelected = selected?.id === plan.id;
          return (
            <PlanCard key={plan.id} plan={plan} selected={isSelected}>
              <Button
                className="w-full"
                variant={isSelected ? "default" : "outline"}
                aria-pressed={isSelected}
                aria-label={`${isSelected ? "Selected" : "Select"} ${plan.name}`}
                onClick={() => choose(plan)}
              >
                {isSelected ? "Selected" : "Select Plan"}
              </Button>
            </PlanCard>
          );
        })}
      </div>
      <div className="mt-10 flex justify-center">
        {selected ? (
          <Button asChild size="lg">
            <Link to="/get-started/details">Continue to Details</Link>
          </Button>
        ) : (
          <Button size="lg" disabled>
            Continue to Details
          </Button>
        )}
      </div>
    </PurchaseStepPage>
  );
}
