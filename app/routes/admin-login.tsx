import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/admin-login";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Staff Sign In", description: "Sign in to the NaijaLink staff area.", path: "/admin/login" },
    matches,
  );

export default function AdminLogin() {
  return <PageHero title="Staff Sign In" />;
}
