import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/how-it-works";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "How It Works",
      description: "Three steps to a Nigerian IP: download WireGuard, import your config file, start saving.",
      path: "/how-it-works",
    },
    matches,
  );

export default function HowItWorks() {
  return <PageHero title="How NaijaLink Works" />;
}
