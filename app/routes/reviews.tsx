import { BadgeCheck, Quote, Star } from "lucide-react";
import { Link } from "react-router";
import { REVIEW_STATS, TESTIMONIALS, VERIFIED_REVIEWS } from "#app/components/marketing/reviews-content.ts";
import { Section } from "#app/components/marketing/sections.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/reviews";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Reviews",
      description:
        "Reviews from NaijaLink customers streaming Nigerian TV and saving on subscriptions abroad.",
      path: "/reviews",
    },
    matches,
  );

function Stars() {
  return (
    <span className="flex text-amber-500" role="img" aria-label="5 out of 5 stars">
      {Array.from({ length: 5 }, (_, index) => (
        <Star key={index} aria-hidden="true" className="size-4 fill-current" />
      ))}
    </span>
  );
}

export default function Reviews() {
  return (
    <>
      <PageHero title="What Our Customers Say">
        <p>Thousands of people abroad use us every day to stay close to home and pay less.</p>
      </PageHero>

      <section aria-label="Our numbers" className="px-4 pb-12">
        <dl className="mx-auto grid max-w-5xl grid-cols-2 gap-6 md:grid-cols-4">
          {REVIEW_STATS.map((stat) => (
            <div
              key={stat.label}
              className="flex flex-col-reverse rounded-xl border bg-card p-6 text-center shadow-sm"
            >
              <dt className="mt-1 text-sm text-muted-foreground">{stat.label}</dt>
              <dd className="text-3xl font-bold text-primary">{stat.value}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-8 text-center text-lg font-medium">
          <span className="font-bold text-primary">98%</span> of our customers would recommend us to a friend.
        </p>
      </section>

      <Section labelledBy="testimonials-title" title="Loved Around the World" muted>
        <ul className="grid gap-6 md:grid-cols-3">
          {TESTIMONIALS.map((testimonial) => (
            <li key={testimonial.name}>
              <figure className="h-full rounded-xl border bg-card p-6 shadow-sm">
                <Quote aria-hidden="true" className="size-6 text-primary" />
                <blockquote className="mt-3">“{testimonial.quote}”</blockquote>
                <figcaption className="mt-4 text-sm">
                  <span className="font-semibold">{testimonial.name}</span>
                  <span className="text-muted-foreground"> · {testimonial.location}</span>
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </Section>

      <Section labelledBy="verified-title" title="Verified Reviews">
        <ul className="grid gap-6 md:grid-cols-2">
          {VERIFIED_REVIEWS.map((review) => (
            <li key={review.name}>
              <article className="h-full rounded-xl border bg-card p-6 shadow-sm">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <Stars />
                  <span className="flex items-center gap-1 text-sm font-medium text-green-800">
                    <BadgeCheck aria-hidden="true" className="size-4" /> Verified Purchase
                  </span>
                </div>
                <h3 className="mt-3 text-lg font-semibold">{review.title}</h3>
                <p className="mt-2 text-muted-foreground">{review.text}</p>
                <p className="mt-4 text-sm">
                  <span className="font-semibold">{review.name}</span>
                  <span className="text-muted-foreground">
                    {" "}
                    · {review.location} · {review.plan} · {review.date}
                  </span>
                </p>
              </article>
            </li>
          ))}
        </ul>
        <div className="mt-12 text-center">
          <Button asChild size="lg">
            <Link to="/get-started">Join Them Today</Link>
          </Button>
        </div>
      </Section>
    </>
  );
}
