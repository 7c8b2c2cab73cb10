import { Badge } from "#app/components/ui/badge.tsx";

/** Marks an order paid with the demo's test card: no real money stands behind it (decision 122). */
export function DemoBadge({ provider }: { provider: "stripe" | "test" }) {
  if (provider !== "test") return null;
  return (
    <Badge
      variant="warning"
      className="ml-1"
      title="Paid with the demo's test card, not real money"
      data-testid="demo-purchase"
    >
      demo
    </Badge>
  );
}
