import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/get-started";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Choose Plan", description: "Step 1 of 3: choose a NaijaLink plan.", path: "/get-started" },
    matches,
  );

export default function GetStarted() {
  return <PageHero title="Choose Your Plan" />;
}
