import { Link } from "react-router";
import { cn } from "#app/lib/utils.ts";

/** A list page's status filter as links (they work without JavaScript); the current one is marked. */
export function StatusTabs({
  label,
  options,
  current,
  hrefFor,
}: {
  label: string;
  options: readonly { value: string; label: string }[];
  current: string;
  hrefFor: (value: string) => string;
}) {
  return (
    <nav aria-label={label} className="mt-4">
      <ul className="flex flex-wrap gap-1 text-sm">
        {options.map((option) => (
          <li key={option.value}>
            <Link
              to={hrefFor(option.value)}
              aria-current={option.value === current ? "page" : undefined}
              className={cn(
                "block whitespace-nowrap rounded-full border px-3 py-1",
                option.value === current && "bg-primary text-primary-foreground",
              )}
            >
              {option.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
