import { ArrowRight } from "lucide-react";
import { Link } from "react-router";
import { FeatureGrid, HOW_IT_WORKS_BENEFITS } from "#app/components/marketing/features.tsx";
import { Section, SetupSteps } from "#app/components/marketing/sections.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/how-it-works";

export { handle } from "#core/static-page.ts";

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
  const { brandName } = usePublicConfig();
  return (
    <>
      <PageHero title={`How ${brandName} Works`}>
        <p>A Nigerian IP address in three simple steps. No technical skills needed, ready in minutes.</p>
      </PageHero>

      <Section id="how-it-works" labelledBy="steps-title" title="Three Simple Steps">
        <SetupSteps />
      </Section>

      <Section labelledBy="process-title" title="The Complete Process" muted>
        <SetupSteps detailed />
      </Section>

      <Section labelledBy="why-title" title={`Why Choose ${brandName}?`}>
        <FeatureGrid features={HOW_IT_WORKS_BENEFITS} />
        <div className="mt-12 flex flex-col items-center justify-center gap-4 sm:flex-row">
          <Button asChild size="lg">
            <Link to="/get-started">
              Get Started <ArrowRight aria-hidden="true" />
            </Link>
          </Button>
          <Button asChild size="lg" variant="outline">
            <Link to="/tutorial">Watch the Tutorial</Link>
          </Button>
        </div>
      </Section>
    </>
  );
}
