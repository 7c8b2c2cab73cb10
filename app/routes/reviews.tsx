import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/reviews";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Reviews",
      description:
        "Reviews from NaijaLink customers streaming Nigerian TV and saving on subscriptions abroad.",
      path: "/reviews",
    },
    matches,
  );

export default function Reviews() {
  return <PageHero title="What Our Customers Say" />;
}
