import { Fragment } from "react";
import { cn } from "#app/lib/utils.ts";

/**
 * An e-mail address that wraps only where a reader expects it to: before the "@" and before each
 * dot (`<wbr>`), never inside a word ("you@example.co m"). Only a single part longer
 * than the whole line may still break (overflow-wrap: anywhere), so it never overflows the screen.
 */
export function EmailAddress({ address, className }: { address: string; className?: string }) {
  const parts = address.split(/(?=[@.])/);
  return (
    <span className={cn("[overflow-wrap:anywhere]", className)}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
