import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/refund-policy";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Refund Policy",
      description: "The NaijaLink 7-day guarantee and refund rules.",
      path: "/refund-policy",
    },
    matches,
  );

export default function RefundPolicy() {
  return <PageHero title="Refund Policy" />;
}
