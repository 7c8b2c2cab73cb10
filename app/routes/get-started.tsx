import { useEffect, useState } from "react";
import { Form } from "react-router";
import { OrdersPaused } from "#app/components/purchase/orders-paused.tsx";
import { PlanCard } from "#app/components/plan-card.tsx";
import { PurchaseStepPage } from "#app/components/purchase/purchase-steps.tsx";
import { Button, buttonVariants } from "#app/components/ui/button.tsx";
import { FormRefusalNote } from "#app/components/purchase/form-refusal-note.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { findPlan, PLANS, type Plan } from "#core/plans.ts";
import { readSelectedPlan, storeSelectedPlan } from "#app/lib/purchase-storage.ts";
import { cn } from "#app/lib/utils.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { choosePlanAction, readPurchaseChoice } from "./get-started-choice.server.ts";
import type { Route } from "./+types/get-started";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Choose Plan", description: "Step 1 of 3: choose a NaijaLink plan.", path: "/get-started" },
    matches,
  );

/**
 * Whether any VPN server can take a device (otherwise orders are paused and the page says so),
 * and the plan this browser chose before (the purchase cookie), checked without JavaScript.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const [sellable, choice] = await Promise.all([
    anyServerCanTakeDevice(context.services.db),
    readPurchaseChoice(request),
  ]);
  return { ordersPaused: !sellable, chosenPlanId: choice.planId };
}

/** The plan posted by this page's form, or by a plan button of / or /pricing. */
export function action({ request, context }: Route.ActionArgs) {
  return choosePlanAction(request, context);
}

export default function GetStarted({ loaderData, actionData }: Route.ComponentProps) {
  const [selected, setSelected] = useState<Plan | null>(findPlan(loaderData.chosenPlanId) ?? null);
  // Until hydration the button stays enabled: without JavaScript the browser posts the form.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    const stored = readSelectedPlan();
    if (stored) setSelected(stored);
    setHydrated(true);
  }, []);

  function choose(plan: Plan) {
    storeSelectedPlan(plan);
    setSelected(plan);
  }

  if (loaderData.ordersPaused)
    return (
      <PurchaseStepPage step={1} title="Choose Your Plan" intro="New orders are paused for now.">
        <OrdersPaused />
      </PurchaseStepPage>
    );

  return (
    <PurchaseStepPage
      step={1}
      title="Choose Your Plan"
      intro="Pick the plan that fits you. Your config arrives the moment you pay."
      width="max-w-6xl"
    >
      <Form method="post" aria-label="Choose your plan">
        <div role="radiogroup" aria-label="Plans" className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {PLANS.map((plan) => {
            const isSelected = selected?.id === plan.id;
            return (
              // The card's radio is its keyboard control (Tab, arrow keys); a click anywhere on the card chooses it too.
              <div key={plan.id} className="flex cursor-pointer" onClick={() => choose(plan)}>
                <PlanCard plan={plan} selected={isSelected}>
                  <label
                    className={cn(
                      buttonVariants({ variant: isSelected ? "default" : "outline" }),
                      "w-full cursor-pointer has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring has-[:focus-visible]:ring-offset-2",
                    )}
                  >
                    <input
                      type="radio"
                      name="planId"
                      value={plan.id}
                      checked={isSelected}
                      onChange={() => choose(plan)}
                      aria-label={plan.name}
                      className="size-4 accent-current focus-visible:outline-none"
                    />
                    {isSelected ? "Selected" : "Select Plan"}
                  </label>
                </PlanCard>
              </div>
            );
          })}
        </div>
        <div className="mt-10 flex flex-col items-center gap-3">
          <Button type="submit" size="lg" disabled={hydrated && !selected}>
            Continue to Details
          </Button>
          {actionData ? <FormRefusalNote message={actionData.message} /> : null}
        </div>
      </Form>
    </PurchaseStepPage>
  );
}
