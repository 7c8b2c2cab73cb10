import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/terms";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Terms and Conditions", description: "The terms of the NaijaLink VPN service.", path: "/terms" },
    matches,
  );

export default function Terms() {
  return <PageHero title="Terms and Conditions" />;
}
