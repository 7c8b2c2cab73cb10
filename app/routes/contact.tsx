import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/contact";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Contact",
      description: "Contact NaijaLink support: 24/7 help with setup, billing and your Nigerian connection.",
      path: "/contact",
    },
    matches,
  );

export default function Contact() {
  return <PageHero title="Get in Touch" />;
}
