import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/get-started-details";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Your Details",
      description: "Step 2 of 3: tell us where to send your config.",
      path: "/get-started/details",
    },
    matches,
  );

export default function GetStartedDetails() {
  return <PageHero title="Your Details" />;
}
