import { PageHero } from "#app/components/page-hero.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/get-started-payment";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Payment", description: "Step 3 of 3: pay securely by card.", path: "/get-started/payment" },
    matches,
  );

export default function GetStartedPayment() {
  return <PageHero title="Payment" />;
}
