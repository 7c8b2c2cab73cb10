import type { ReactNode } from "react";
import { Link } from "react-router";
import { PageHero } from "#app/components/page-hero.tsx";

export const LEGAL_EFFECTIVE_DATE = "2 June 2025";

export interface LegalSection {
  title: string;
  body: ReactNode;
}

/** A legal text: effective date, a table of contents and numbered sections. */
export function LegalPage({
  title,
  intro,
  sections,
}: {
  title: string;
  intro: ReactNode;
  sections: LegalSection[];
}) {
  const slug = (index: number) => `section-${index + 1}`;
  return (
    <>
      <PageHero title={title}>
        <p>Effective {LEGAL_EFFECTIVE_DATE}</p>
      </PageHero>
      <article className="px-4 pb-16">
        <div className="mx-auto max-w-3xl">
          <div className="text-lg leading-relaxed">{intro}</div>
          <nav aria-label="Contents" className="mt-8 rounded-xl border bg-muted p-6">
            <h2 className="text-sm font-semibold uppercase tracking-wide text-muted-foreground">Contents</h2>
            <ol className="mt-3 grid gap-1 sm:grid-cols-2">
              {sections.map((section, index) => (
                <li key={section.title}>
                  <a href={`#${slug(index)}`} className="text-primary underline-offset-2 hover:underline">
                    {index + 1}. {section.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>
          {sections.map((section, index) => (
            <section
              key={section.title}
              id={slug(index)}
              aria-labelledby={`${slug(index)}-title`}
              className="mt-10"
            >
              <h2 id={`${slug(index)}-title`} className="text-2xl font-bold">
                {index + 1}. {section.title}
              </h2>
              <div className="legal-body mt-4 flex flex-col gap-4 leading-relaxed text-foreground/90">
                {section.body}
              </div>
            </section>
          ))}
        </div>
      </article>
    </>
  );
}

export function TextLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className="font-medium text-primary underline underline-offset-2">
      {children}
    </Link>
  );
}

export function MailLink({ email }: { email: string }) {
  return (
    <a href={`mailto:${email}`} className="font-medium text-primary underline underline-offset-2 break-all">
      {email}
    </a>
  );
}
