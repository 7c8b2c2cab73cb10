import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/payment-success";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta({ title: "Payment", description: "Your NaijaLink order.", path: "/payment-success" }, matches);

export default function PaymentSuccess() {
  return <PageHero title="Verifying Payment" />;
}
