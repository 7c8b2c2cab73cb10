import { Apple, Monitor, Power, Smartphone, Upload } from "lucide-react";
import { Link } from "react-router";
import { PlatformIcons, Section } from "#app/components/marketing/sections.tsx";
import { VideoFacade } from "#app/components/marketing/video-facade.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent } from "#app/components/ui/card.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/tutorial";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Setup Tutorial",
      description:
        "Set up NaijaLink on iOS, Android, Windows, Mac or Linux in minutes with the WireGuard app.",
      path: "/tutorial",
    },
    matches,
  );

/** The official WireGuard apps (wireguard.com/install lists the same stores). */
const WIREGUARD_APPS = [
  {
    icon: Apple,
    platform: "iOS",
    store: "App Store",
    href: "https://apps.apple.com/app/wireguard/id1441195209",
  },
  {
    icon: Smartphone,
    platform: "Android",
    store: "Play Store",
    href: "https://play.google.com/store/apps/details?id=com.wireguard.android",
  },
  {
    icon: Monitor,
    platform: "Desktop",
    store: "the WireGuard website",
    href: "https://www.wireguard.com/install/",
  },
];

export default function Tutorial() {
  const { brandName, tutorialVideoId } = usePublicConfig();
  return (
    <>
      <PageHero title="Setup Tutorial">
        <p>Watch the video, follow three steps, and you are browsing from Nigeria in under five minutes.</p>
      </PageHero>

      <section aria-label="Setup video" className="px-4 pb-12">
        <div className="mx-auto max-w-4xl">
          <VideoFacade videoId={tutorialVideoId} title={`How to set up ${brandName} with WireGuard`} />
        </div>
      </section>

      <Section labelledBy="steps-title" title="Three Steps to Get Connected" muted>
        <ol className="mx-auto grid max-w-4xl gap-6">
          <li>
            <Card>
              <CardContent className="p-6">
                <h3 className="flex items-center gap-3 text-xl font-semibold">
                  <StepNumber n={1} /> Download WireGuard
                </h3>
                <p className="mt-3 text-muted-foreground">
                  Install the free, official WireGuard app for your device:
                </p>
                <ul className="mt-3 grid gap-2 sm:grid-cols-3">
                  {WIREGUARD_APPS.map(({ icon: Icon, platform, store, href }) => (
                    <li key={store} className="flex items-center gap-2">
                      <Icon aria-hidden="true" className="size-5 shrink-0 text-primary" /> {platform}:{" "}
                      <a
                        href={href}
                        target="_blank"
                        rel="noopener noreferrer"
                        className="font-medium text-primary underline underline-offset-2"
                      >
                        {store}
                        <span className="sr-only"> (opens in a new tab)</span>
                      </a>
                    </li>
                  ))}
                </ul>
              </CardContent>
            </Card>
          </li>
          <li>
            <Card>
              <CardContent className="p-6">
                <h3 className="flex items-center gap-3 text-xl font-semibold">
                  <StepNumber n={2} /> Import your config file
                </h3>
                <p className="mt-3 flex gap-2 text-muted-foreground">
                  <Upload aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-primary" />
                  Open WireGuard, tap Add Tunnel and import the .conf file you received by e-mail (on a phone
                  you can also scan the QR code shown after payment).
                </p>
              </CardContent>
            </Card>
          </li>
          <li>
            <Card>
              <CardContent className="p-6">
                <h3 className="flex items-center gap-3 text-xl font-semibold">
                  <StepNumber n={3} /> Connect and enjoy
                </h3>
                <p className="mt-3 flex gap-2 text-muted-foreground">
                  <Power aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-primary" />
                  Toggle the connection on and visit Nigerian sites: DSTV, Showmax, Startimes and Nigerian
                  prices are now open to you.
                </p>
                <p className="mt-3 pl-7">
                  <Link to="/check" className="font-medium text-primary underline underline-offset-2">
                    Check that you are connected through Nigeria
                  </Link>
                </p>
              </CardContent>
            </Card>
          </li>
        </ol>
        <div className="mt-12">
          <PlatformIcons />
        </div>
        <div className="mt-10 flex flex-col items-center justify-center gap-4 sm:flex-row">
          <Button asChild size="lg">
            <Link to="/get-started">Get Started</Link>
          </Button>
          <Button asChild size="lg" variant="outline">
            <Link to="/contact">Need help? Contact us</Link>
          </Button>
        </div>
      </Section>
    </>
  );
}

function StepNumber({ n }: { n: number }) {
  return (
    <span className="flex size-9 shrink-0 items-center justify-center rounded-full bg-primary text-base font-bold text-primary-foreground">
      <span className="sr-only">Step </span>
      {n}
    </span>
  );
}
