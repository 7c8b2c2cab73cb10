import { Check } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "#app/components/ui/badge.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import type { Plan } from "#core/plans.ts";
import { cn } from "#app/lib/utils.ts";

/** One plan of the catalogue; the page decides what its button does. */
export function PlanCard({
  plan,
  selected,
  extraSaving,
  children,
}: {
  plan: Plan;
  selected?: boolean;
  /** A second reading of the discount, e.g. "Save $16" next to "Save 17%". */
  extraSaving?: string | null;
  children?: ReactNode;
}) {
  return (
    <Card
      data-plan-id={plan.id}
      className={cn(
        "relative flex w-full flex-col",
        plan.popular && "border-primary shadow-lg",
        selected && "ring-2 ring-primary",
      )}
    >
      {plan.badges.length ? (
        <p className="absolute -top-3 left-1/2 flex -translate-x-1/2 gap-1.5 whitespace-nowrap">
          {plan.badges.map((badge, index) => (
            <Badge key={badge} variant={plan.popular && index === 0 ? "default" : "secondary"}>
              {badge}
            </Badge>
          ))}
        </p>
      ) : null}
      <CardHeader>
        <CardTitle>{plan.name}</CardTitle>
        <p className="mt-2 flex flex-wrap items-baseline gap-x-1">
          {plan.originalPrice ? (
            <s className="mr-1 text-muted-foreground">
              <span className="sr-only">Was </span>
              {plan.originalPrice}
            </s>
          ) : null}
          <span className="text-4xl font-bold">{plan.price}</span>
          <span className="text-muted-foreground">{plan.period}</span>
        </p>
        <p className="text-sm text-muted-foreground">{plan.devices}</p>
        {plan.savings || extraSaving ? (
          <p className="flex flex-wrap gap-2">
            {plan.savings ? <Badge variant="success">{plan.savings}</Badge> : null}
            {extraSaving ? <Badge variant="success">{extraSaving}</Badge> : null}
          </p>
        ) : null}
      </CardHeader>
      <CardContent className="flex flex-1 flex-col gap-4">
        <ul className="flex flex-1 flex-col gap-2">
          {plan.features.map((feature) => (
            <li key={feature} className="flex gap-2 text-sm">
              <Check aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-primary" />
              {feature}
            </li>
          ))}
        </ul>
        {children}
      </CardContent>
    </Card>
  );
}
