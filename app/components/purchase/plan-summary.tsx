import { Check } from "lucide-react";
import { Link } from "react-router";
import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import { Skeleton } from "#app/components/ui/skeleton.tsx";
import type { Plan } from "#core/plans.ts";
import { Button } from "#app/components/ui/button.tsx";

/** The side panel of the details step: the chosen plan, or a way back to choose one. */
export function PlanSummary({ ready, plan }: { ready: boolean; plan: Plan | null }) {
  return (
    <Card aria-busy={!ready} data-testid="plan-summary">
      <CardHeader>
        <CardTitle>Your Plan</CardTitle>
      </CardHeader>
      <CardContent>
        {!ready ? (
          <div className="flex flex-col gap-3">
            <Skeleton className="h-6 w-32" />
            <Skeleton className="h-8 w-24" />
            <Skeleton className="h-4 w-40" />
          </div>
        ) : plan ? (
          <div className="flex flex-col gap-3">
            <p className="text-lg font-semibold">{plan.name}</p>
            <p>
              <span className="text-3xl font-bold">{plan.price}</span>
              <span className="ml-1 text-muted-foreground">{plan.period}</span>
            </p>
            <p className="text-sm text-muted-foreground">{plan.devices}</p>
            <ul className="flex flex-col gap-2">
              {plan.features.map((feature) => (
                <li key={feature} className="flex gap-2 text-sm">
                  <Check aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-primary" />
                  {feature}
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <div className="flex flex-col items-start gap-3">
            <p className="text-muted-foreground">No plan selected</p>
            <Button asChild variant="outline">
              <Link to="/get-started">Select a Plan</Link>
            </Button>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
