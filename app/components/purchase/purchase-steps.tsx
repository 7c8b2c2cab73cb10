import { Check } from "lucide-react";
import type { ReactNode } from "react";
import { PageHero } from "#app/components/page-hero.tsx";
import { cn } from "#app/lib/utils.ts";

export const PURCHASE_STEPS = ["Choose Plan", "Your Details", "Payment"] as const;

/** The three-step progress indicator of the purchase flow. */
export function PurchaseSteps({ current }: { current: 1 | 2 | 3 }) {
  return (
    <nav aria-label="Purchase progress" className="mx-auto mb-10 max-w-2xl">
      <ol className="flex items-center justify-between gap-2">
        {PURCHASE_STEPS.map((label, index) => {
          const step = index + 1;
          const done = step < current;
          const active = step === current;
          return (
            <li
              key={label}
              className="flex flex-1 items-center gap-2"
              aria-current={active ? "step" : undefined}
              data-step-state={done ? "done" : active ? "current" : "upcoming"}
            >
              <span
                className={cn(
                  "flex size-8 shrink-0 items-center justify-center rounded-full border-2 text-sm font-semibold",
                  done && "border-primary bg-primary text-primary-foreground",
                  active && "border-primary text-primary",
                  !done && !active && "border-muted-foreground/40 text-muted-foreground",
                )}
              >
                {done ? <Check aria-hidden="true" className="size-4" /> : step}
              </span>
              <span className={cn("text-sm", active ? "font-semibold" : "text-muted-foreground")}>
                {label}
              </span>
              {step < PURCHASE_STEPS.length ? (
                <span aria-hidden="true" className={cn("h-0.5 flex-1", done ? "bg-primary" : "bg-muted")} />
              ) : null}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/** The frame of each purchase step: heading, the progress indicator, then the step's content. */
export function PurchaseStepPage({
  step,
  title,
  intro,
  width = "max-w-5xl",
  children,
}: {
  step: 1 | 2 | 3;
  title: string;
  intro: string;
  width?: "max-w-5xl" | "max-w-6xl";
  children: ReactNode;
}) {
  return (
    <>
      <PageHero title={title}>
        <p>{intro}</p>
      </PageHero>
      <section className="px-4 py-12">
        <div className={cn("mx-auto", width)}>
          <PurchaseSteps current={step} />
          {children}
        </div>
      </section>
    </>
  );
}
