import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/admin-blog";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Blog Admin", description: "Manage NaijaLink blog posts.", path: "/admin/blog" },
    matches,
  );

export default function AdminBlog() {
  return <PageHero title="Blog Admin" />;
}
