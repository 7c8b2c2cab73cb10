import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/test-checkout";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta({ title: "Checkout", description: "Pay for your NaijaLink plan.", path: "/checkout" }, matches);

export default function TestCheckout() {
  return <PageHero title="Checkout" />;
}
