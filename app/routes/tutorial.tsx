import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/tutorial";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Setup Tutorial",
      description:
        "Set up NaijaLink on iOS, Android, Windows, Mac or Linux in minutes with the WireGuard app.",
      path: "/tutorial",
    },
    matches,
  );

export default function Tutorial() {
  return <PageHero title="Setup Tutorial" />;
}
