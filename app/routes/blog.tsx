import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/blog";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Blog",
      description: "Guides and news on watching Nigerian TV abroad, Nigerian prices and staying connected.",
      path: "/blog",
    },
    matches,
  );

export default function Blog() {
  return <PageHero title="NaijaLink Blog" />;
}
