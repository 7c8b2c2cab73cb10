import type { ReactNode } from "react";
import { Badge } from "#app/components/ui/badge.tsx";

export function PageHero({
  badge,
  title,
  children,
}: {
  badge?: string;
  title: ReactNode;
  children?: ReactNode;
}) {
  return (
    <section className="bg-gradient-to-b from-accent to-background px-4 py-16 text-center md:py-20">
      <div className="mx-auto max-w-3xl">
        {badge ? (
          <Badge variant="secondary" className="mb-4">
            {badge}
          </Badge>
        ) : null}
        <h1 className="text-3xl font-bold tracking-tight md:text-5xl">{title}</h1>
        {children ? <div className="mt-4 text-lg text-muted-foreground">{children}</div> : null}
      </div>
    </section>
  );
}
