import type { ReactNode } from "react";
import { cn } from "#app/lib/utils.ts";

/**
 * A wide table's horizontal scroller on a small screen, reachable by keyboard (focusable, named),
 * so a keyboard user can scroll it too (axe: scrollable-region-focusable).
 */
export function ScrollRegion({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={cn("overflow-x-auto", className)}>
      {children}
    </div>
  );
}
