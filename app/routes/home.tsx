import { useNavigate } from "react-router";
import { Link } from "react-router";
import { PageHero } from "#app/components/page-hero.tsx";
import { PlanCard } from "#app/components/plan-card.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { PLANS } from "#app/lib/plans.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import { storeSelectedPlan } from "#app/lib/purchase-storage.ts";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      description:
        "Get a Nigerian IP in seconds: stream DSTV, Showmax and Startimes abroad and pay Nigerian prices. WireGuard config delivered instantly.",
      path: "/",
    },
    matches,
  );

export default function Home() {
  const { brandName } = usePublicConfig();
  const navigate = useNavigate();
  return (
    <>
      <PageHero title="Access Nigerian Content From Anywhere">
        <p>Stream DSTV, Showmax and Startimes and pay Nigerian prices, wherever you live.</p>
        <Button asChild size="lg" className="mt-8">
          <Link to="/get-started">Get {brandName} Now</Link>
        </Button>
      </PageHero>
      <section id="pricing" className="px-4 py-16">
        <div className="mx-auto max-w-6xl">
          <h2 className="text-center text-3xl font-bold">Pricing</h2>
          <div className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {PLANS.map((plan) => (
              <PlanCard key={plan.id} plan={plan}>
                <Button
                  className="w-full"
                  onClick={() => {
                    storeSelectedPlan(plan);
                    navigate("/get-started/details");
                  }}
                >
                  Get It Now
                </Button>
              </PlanCard>
            ))}
          </div>
        </div>
      </section>
      <section id="how-it-works" className="bg-muted px-4 py-16">
        <div className="mx-auto max-w-6xl">
          <h2 className="text-center text-3xl font-bold">How It Works</h2>
          <ol className="mt-10 grid gap-6 md:grid-cols-3">
            <li>1. Download WireGuard from the official app store</li>
            <li>2. Import the config file</li>
            <li>3. Start saving</li>
          </ol>
        </div>
      </section>
    </>
  );
}
