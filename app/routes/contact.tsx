import { BookOpen, Clock, CreditCard, Mail } from "lucide-react";
import { Link, redirectDocument } from "react-router";
import { ContactForm } from "#app/components/marketing/contact-form.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import { contactMessageSchema, submitContactMessage } from "#server/domain/contact/contact.ts";
import { flashCookie } from "#server/http/flash.ts";
import { pageFormAction } from "#server/http/page-forms.ts";
import type { Route } from "./+types/contact";

export { handle } from "#core/static-page.ts";

/** What the enhancement script says when the form is sent (app/enhance/contact-form.ts). */
export const CONTACT_SENT = {
  type: "success",
  title: "Message Sent!",
  description: "Thank you for contacting us. We'll get back to you within 24 hours.",
} as const;

/**
 * The form posted without JavaScript: the same schema and domain call as
 * /api/send-contact-email, then back to /contact (a document load: the page is static) with the
 * same message the script shows. A refusal is shown under the form's button.
 */
export async function action({ request, context }: Route.ActionArgs) {
  return pageFormAction(
    request,
    contactMessageSchema,
    async (input) => {
      await submitContactMessage(context.services, input, context.clientIp);
      throw redirectDocument("/contact", {
        headers: { "Set-Cookie": flashCookie(context.services, CONTACT_SENT) },
      });
    },
    (fields) =>
      ["name", "email", "subject", "message"].some((field) => !fields[field]?.trim())
        ? "Please fill in all fields."
        : null,
  );
}

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Contact",
      description: "Contact NaijaLink support: 24/7 help with setup, billing and your Nigerian connection.",
      path: "/contact",
    },
    matches,
  );

const FORM_ID = "contact-form";
const cardHeading = "text-xl font-semibold leading-tight";

export default function Contact({ actionData }: Route.ComponentProps) {
  const { supportEmail } = usePublicConfig();

  return (
    <>
      <PageHero badge="24/7 Support" title="Get in Touch">
        <p>
          Our support team is here to help you every step of the way, from choosing a plan to your first
          stream.
        </p>
      </PageHero>

      <section aria-label="Contact options" className="px-4 pb-16">
        <div className="mx-auto grid max-w-6xl gap-8 lg:grid-cols-3">
          <div className="flex flex-col gap-6">
            <Card>
              <CardHeader>
                <Mail aria-hidden="true" className="size-8 text-primary" />
                <h2 className={cardHeading}>Email Support</h2>
              </CardHeader>
              <CardContent>
                <p className="text-muted-foreground">Write to us any time; we reply within 24 hours.</p>
                <a
                  href={`mailto:${supportEmail}`}
                  className="mt-2 inline-block break-all font-medium text-primary underline underline-offset-2"
                >
                  {supportEmail}
                </a>
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <Clock aria-hidden="true" className="size-8 text-primary" />
                <h2 className={cardHeading}>Support Hours</h2>
              </CardHeader>
              <CardContent>
                <p className="font-medium">24/7, every day of the year</p>
                <p className="mt-1 text-muted-foreground">Response within 24 hours, usually much sooner.</p>
              </CardContent>
            </Card>
          </div>
          <Card className="lg:col-span-2">
            <CardHeader>
              <h2 className={cardHeading}>Send Us a Message</h2>
            </CardHeader>
            <CardContent>
              <ContactForm id={FORM_ID} refusal={actionData} />
            </CardContent>
          </Card>
        </div>
      </section>

      <section aria-labelledby="quick-answers" className="bg-muted px-4 py-16">
        <div className="mx-auto max-w-4xl text-center">
          <h2 id="quick-answers" className="text-3xl font-bold tracking-tight">
            Quick Answers
          </h2>
          <p className="mt-4 text-lg text-muted-foreground">Most questions are answered in a minute here.</p>
          <div className="mt-10 grid gap-6 text-left md:grid-cols-2">
            <Card>
              <CardHeader>
                <BookOpen aria-hidden="true" className="size-8 text-primary" />
                <CardTitle>Setting up your connection?</CardTitle>
              </CardHeader>
              <CardContent className="flex flex-col gap-4">
                <p className="text-muted-foreground">
                  Our video tutorial shows how to install WireGuard and import your config on every device.
                </p>
                <Button asChild variant="outline" className="w-fit">
                  <Link to="/tutorial">Setup Guide</Link>
                </Button>
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CreditCard aria-hidden="true" className="size-8 text-primary" />
                <CardTitle>Questions about billing?</CardTitle>
              </CardHeader>
              <CardContent className="flex flex-col gap-4">
                <p className="text-muted-foreground">
                  Refunds, renewals or cancelling: send us a message and we will sort it out within 24 hours.
                </p>
                <Button type="button" variant="outline" className="w-fit" data-scroll-to={FORM_ID}>
                  Billing Help
                </Button>
              </CardContent>
            </Card>
          </div>
        </div>
      </section>
    </>
  );
}
