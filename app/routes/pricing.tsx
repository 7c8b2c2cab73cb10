import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/pricing";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Pricing",
      description:
        "Simple, transparent pricing for Nigerian IP access. Pay in USD, get your WireGuard config instantly.",
      path: "/pricing",
    },
    matches,
  );

export default function Pricing() {
  return <PageHero title="Choose Your Plan" />;
}
