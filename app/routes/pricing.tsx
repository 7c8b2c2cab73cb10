import { Link } from "react-router";
import { BrandIcon, PAYMENT_ICONS } from "#app/components/marketing/brand-icons.tsx";
import { PlanGrid } from "#app/components/marketing/plan-grid.tsx";
import { Faq, SavingsSection } from "#app/components/marketing/sections.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { OrdersPaused } from "#app/components/purchase/orders-paused.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { PageHandle } from "#core/static-page.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import type { Route } from "./+types/pricing";

// Static, but kept by the page cache per sales state (server/http/static-pages.ts), not for the process's life.
export const handle: PageHandle = { hydrate: false, showsSalesState: true };

/** Whether any VPN server can take a device: otherwise orders are paused and the page says so. */
export async function loader({ context }: Route.LoaderArgs) {
  return { ordersPaused: !(await anyServerCanTakeDevice(context.services.db)) };
}

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Pricing",
      description:
        "Simple, transparent pricing for Nigerian IP access. Pay in USD, get your WireGuard config instantly.",
      path: "/pricing",
    },
    matches,
  );

export default function Pricing({ loaderData }: Route.ComponentProps) {
  const { brandName } = usePublicConfig();

  return (
    <>
      <PageHero badge="Simple Pricing" title="Choose Your Plan">
        <p>
          Transparent pricing with no hidden fees. Pay once for a 7-day pass or subscribe monthly or yearly,
          and cancel any time.
        </p>
      </PageHero>

      <section id="pricing" aria-labelledby="plans-title" className="px-4 pb-16">
        <div className="mx-auto max-w-6xl">
          <h2 id="plans-title" className="sr-only">
            Plans
          </h2>
          {loaderData.ordersPaused ? (
            <div className="mb-10">
              <OrdersPaused />
            </div>
          ) : null}
          {/* The notice, then on to the details step. */}
          <PlanGrid
            guarantees
            buttonLabel="Get Started"
            ordersPaused={loaderData.ordersPaused}
            notice={{ title: `Welcome to ${brandName}!`, description: "Redirecting to setup guide..." }}
          />
          <div className="mt-12 flex flex-col items-center gap-4 text-center text-sm text-muted-foreground">
            <p className="font-medium text-foreground">Accepted payment methods</p>
            <ul
              className="flex flex-wrap items-center justify-center gap-6"
              aria-label="Accepted payment methods"
            >
              <li className="flex items-center gap-2">
                <BrandIcon icon={PAYMENT_ICONS.visa} className="size-6" />
                <BrandIcon icon={PAYMENT_ICONS.mastercard} className="size-6" />
                <span>Visa/Mastercard</span>
              </li>
              <li className="flex items-center gap-2">
                <BrandIcon icon={PAYMENT_ICONS.paypal} className="size-6" />
                <span>PayPal</span>
              </li>
              <li className="flex items-center gap-2">
                <BrandIcon icon={PAYMENT_ICONS.bitcoin} className="size-6" />
                <span>Bitcoin</span>
              </li>
            </ul>
            <p>
              By purchasing you agree to our{" "}
              <Link to="/terms" className="font-medium text-primary underline underline-offset-2">
                Terms
              </Link>{" "}
              and{" "}
              <Link to="/refund-policy" className="font-medium text-primary underline underline-offset-2">
                Refund Policy
              </Link>
              .
            </p>
            <p>Prices are in USD and subject to local taxes where applicable.</p>
          </div>
        </div>
      </section>

      <SavingsSection />
      <Faq />
    </>
  );
}
