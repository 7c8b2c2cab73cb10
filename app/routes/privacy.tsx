import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/privacy";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Privacy Policy",
      description: "How NaijaLink handles your data: a zero-log VPN service.",
      path: "/privacy",
    },
    matches,
  );

export default function Privacy() {
  return <PageHero title="Privacy Policy" />;
}
