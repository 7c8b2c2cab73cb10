import { ArrowRight, Clock, ShieldCheck, Star } from "lucide-react";
import { Link } from "react-router";
import { FeatureGrid, LANDING_FEATURES } from "#app/components/marketing/features.tsx";
import { PlanGrid } from "#app/components/marketing/plan-grid.tsx";
import { Section, SetupSteps, TutorialTeaser } from "#app/components/marketing/sections.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/home";

export { handle } from "#core/static-page.ts";

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
  return (
    <>
      <section className="bg-gradient-to-b from-accent to-background px-4 py-16 text-center md:py-24">
        <div className="mx-auto max-w-3xl">
          <p className="mb-4 inline-flex items-center gap-2 rounded-full bg-background px-3 py-1 text-sm font-medium text-primary shadow-sm">
            <Star aria-hidden="true" className="size-4" /> Nigerian IP access in seconds
          </p>
          <h1 className="text-4xl font-bold tracking-tight md:text-6xl">
            Access Nigerian Content From Anywhere
          </h1>
          <p className="mt-6 text-lg text-muted-foreground md:text-xl">
            Stream DSTV, Showmax and Startimes and pay Nigerian prices for music, video and satellite TV,
            wherever you live. Your WireGuard config arrives the moment you pay.
          </p>
          <Button asChild size="lg" className="mt-8">
            <Link to="/get-started">
              Get {brandName} Now <ArrowRight aria-hidden="true" />
            </Link>
          </Button>
          <ul className="mt-8 flex flex-wrap justify-center gap-x-6 gap-y-2 text-sm text-muted-foreground">
            <li className="flex items-center gap-1">
              <Clock aria-hidden="true" className="size-4 text-primary" /> Instant Config Delivery
            </li>
            <li className="flex items-center gap-1">
              <ShieldCheck aria-hidden="true" className="size-4 text-primary" /> 7-Day Guarantee
            </li>
            <li>Prices in USD</li>
          </ul>
        </div>
      </section>

      <Section
        id="pricing"
        labelledBy="pricing-title"
        title="Simple, Transparent Pricing"
        intro="Pick the plan that fits. Every plan includes the 7-day guarantee."
      >
        <PlanGrid buttonLabel="Get It Now" />
      </Section>

      <Section labelledBy="tutorial-title" title="Set Up in Minutes" muted>
        <TutorialTeaser />
      </Section>

      <Section labelledBy="why-title" title={`Why Choose ${brandName}?`}>
        <FeatureGrid features={LANDING_FEATURES} />
      </Section>

      <Section id="how-it-works" labelledBy="how-title" title="How It Works" muted>
        <SetupSteps />
        <div className="mt-10 text-center">
          <Button asChild variant="link">
            <Link to="/how-it-works">See the complete process</Link>
          </Button>
        </div>
      </Section>
    </>
  );
}
