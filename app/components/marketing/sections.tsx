import { Download, FileDown, PlayCircle, type LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent } from "#app/components/ui/card.tsx";
import { cn } from "#app/lib/utils.ts";
import { PLATFORMS, SERVICE_ICON_BY_NAME, SERVICE_LOGOS } from "./brand-icons.tsx";
import { PRICING_FAQ, SAVINGS_COMPARISONS, SETUP_STEPS } from "./content.ts";

export function Section({
  id,
  title,
  intro,
  muted,
  children,
  labelledBy,
}: {
  id?: string;
  title: ReactNode;
  intro?: ReactNode;
  muted?: boolean;
  children: ReactNode;
  labelledBy: string;
}) {
  return (
    <section id={id} aria-labelledby={labelledBy} className={cn("px-4 py-16 md:py-20", muted && "bg-muted")}>
      <div className="mx-auto max-w-6xl">
        <h2 id={labelledBy} className="text-center text-3xl font-bold tracking-tight md:text-4xl">
          {title}
        </h2>
        {intro ? (
          <p className="mx-auto mt-4 max-w-2xl text-center text-lg text-muted-foreground">{intro}</p>
        ) : null}
        <div className="mt-10">{children}</div>
      </div>
    </section>
  );
}

const stepIcons: LucideIcon[] = [Download, FileDown, PlayCircle];

/** The three steps (docs/product.md §2.5): short cards, or with `detailed` the longer text. */
export function SetupSteps({ detailed = false }: { detailed?: boolean }) {
  return (
    <ol className="grid gap-6 md:grid-cols-3">
      {SETUP_STEPS.map((step, index) => {
        const Icon = stepIcons[index]!;
        return (
          <li key={step.title}>
            <Card className="h-full">
              <CardContent className="flex flex-col items-center gap-3 p-6 text-center">
                <span
                  aria-hidden="true"
                  className="flex size-12 items-center justify-center rounded-full bg-primary text-lg font-bold text-primary-foreground"
                >
                  {index + 1}
                </span>
                <Icon aria-hidden="true" className="size-6 text-primary" />
                <h3 className="text-lg font-semibold">
                  <span className="sr-only">Step {index + 1}: </span>
                  {detailed ? step.title : step.summary}
                </h3>
                {detailed ? <p className="text-muted-foreground">{step.detail}</p> : null}
              </CardContent>
            </Card>
          </li>
        );
      })}
    </ol>
  );
}

export function PlatformIcons() {
  return (
    <ul className="flex flex-wrap items-center justify-center gap-6" aria-label="Supported platforms">
      {PLATFORMS.map((platform) => (
        <li key={platform.name} className="flex flex-col items-center gap-2 text-sm font-medium">
          <img
            src={`/icons/${platform.file}`}
            alt=""
            width={40}
            height={40}
            loading="lazy"
            decoding="async"
            className="size-10"
          />
          {platform.name}
        </li>
      ))}
    </ul>
  );
}

export function TutorialTeaser() {
  return (
    <div className="mx-auto flex max-w-3xl flex-col items-center gap-8 text-center">
      <p className="text-lg text-muted-foreground">
        Watch our short setup video and you will be streaming in under five minutes, on any device.
      </p>
      <PlatformIcons />
      <Button asChild size="lg" variant="outline">
        <Link to="/tutorial">
          <PlayCircle aria-hidden="true" />
          Watch the Setup Tutorial
        </Link>
      </Button>
    </div>
  );
}

export function SavingsSection() {
  return (
    <Section
      labelledBy="savings-title"
      title="Stop Overpaying for Subscriptions"
      intro="Pay Nigerian prices for the services you already use. Monthly price in Nigeria vs the US/Canada:"
      muted
    >
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {SAVINGS_COMPARISONS.map((item) => {
          const Logo = SERVICE_ICON_BY_NAME[item.logo]!;
          return (
            <li
              key={item.service}
              className="rounded-xl border bg-card p-6 text-center shadow-sm"
              data-service={item.service}
            >
              <Logo className="mx-auto size-10" />
              <h3 className="mt-3 font-semibold">{item.service}</h3>
              <dl className="mt-4 grid grid-cols-2 gap-2 text-sm">
                <div>
                  <dt className="text-muted-foreground">Nigeria</dt>
                  <dd className="text-2xl font-bold text-primary">{item.africaPrice}</dd>
                </div>
                <div>
                  <dt className="text-muted-foreground">US/Canada</dt>
                  <dd className="text-2xl font-bold text-muted-foreground line-through">
                    {item.abroadPrice}
                  </dd>
                </div>
              </dl>
              <p className="mt-4 inline-block rounded-full bg-green-100 px-3 py-1 text-sm font-semibold text-green-800">
                Save {item.savings}
              </p>
            </li>
          );
        })}
      </ul>
      <div className="mt-12 text-center">
        <h3 className="text-lg font-semibold text-muted-foreground">
          Trusted by thousands using these services
        </h3>
        <ul className="mt-6 flex flex-wrap items-center justify-center gap-8" aria-label="Services">
          {SERVICE_LOGOS.map((logo) => (
            <li
              key={logo.name}
              className="flex flex-col items-center gap-1 text-xs font-medium text-muted-foreground"
            >
              <logo.icon className="size-10" />
              <span>{logo.name}</span>
            </li>
          ))}
        </ul>
      </div>
    </Section>
  );
}

export function Faq() {
  return (
    <Section labelledBy="faq-title" title="Frequently Asked Questions">
      <div className="mx-auto max-w-3xl divide-y rounded-xl border bg-card">
        {PRICING_FAQ.map((item) => (
          <details key={item.question} className="group px-6 py-4">
            <summary className="cursor-pointer list-none font-semibold marker:hidden focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring">
              <span className="flex items-center justify-between gap-4">
                {item.question}
                <span aria-hidden="true" className="text-primary transition-transform group-open:rotate-45">
                  +
                </span>
              </span>
            </summary>
            <p className="mt-3 text-muted-foreground">{item.answer}</p>
          </details>
        ))}
      </div>
    </Section>
  );
}
