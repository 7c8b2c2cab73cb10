import { LegalPage, MailLink, TextLink, type LegalSection } from "#app/components/marketing/legal-page.tsx";
import { LEGAL_PAGES } from "#app/components/marketing/legal-pages.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/terms";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = ({ matches }) => pageMeta(LEGAL_PAGES.terms, matches);

export default function Terms() {
  const { brandName, supportEmail } = usePublicConfig();
  const sections: LegalSection[] = [
    {
      title: "Who we are and what these terms cover",
      body: (
        <>
          <p>
            These Terms and Conditions govern your use of the {brandName} website and the {brandName} VPN
            service (together, the “Service”). By buying a plan or using the Service you agree to them. If you
            do not agree, please do not use the Service.
          </p>
          <p>We may update these terms; the effective date above always shows the current version.</p>
        </>
      ),
    },
    {
      title: "The Service",
      body: (
        <>
          <p>
            {brandName} gives you a WireGuard configuration file (.conf, also shown as a QR code) that
            connects your device to our servers in Nigeria, so that websites see a Nigerian IP address. You
            import it into the official WireGuard app on Windows, Mac, Android, iOS or Linux.
          </p>
          <p>
            We work hard to keep streaming services such as DSTV, Showmax and Startimes reachable, but we do
            not control third-party services and cannot guarantee that any particular service, price or
            catalogue will be available to you at all times.
          </p>
        </>
      ),
    },
    {
      title: "Plans, prices and renewal",
      body: (
        <>
          <p>
            Prices are in USD and may be subject to local taxes where applicable. The Unlock Pass is a
            one-time payment for 7 days of access on 1 device. Basic Monthly (1 device), Pro Monthly (up to 3
            devices) and Pro Yearly (up to 3 devices) are subscriptions that renew automatically at the end of
            each period until you cancel.
          </p>
          <p>
            You can cancel at any time by e-mailing <MailLink email={supportEmail} />. Cancellation takes
            effect at the end of the period you have paid for; you keep access until then.
          </p>
        </>
      ),
    },
    {
      title: "Your account and configuration",
      body: (
        <>
          <p>
            Your configuration file is personal. Each device slot of your plan is one configuration; do not
            share it beyond the number of devices your plan includes. A configuration counts as activated once
            its QR code has been shown or its file downloaded.
          </p>
          <p>Keep your configuration file safe: anyone who has it can use your connection.</p>
        </>
      ),
    },
    {
      title: "Refunds and the 7-day guarantee",
      body: (
        <>
          <p>
            Every plan comes with a 7-day guarantee: if you have not activated your configuration, you can ask
            for a full refund within 7 days of purchase, and get it yourself with &ldquo;Refund this
            purchase&rdquo; in your account; the plan then ends at once.
          </p>
          <p>
            If you cannot access the Service at all within 24 hours of purchase, tell us and you may request a
            full refund. After activation, we first troubleshoot with you; if we cannot provide a working
            Nigerian connection within 72 hours of troubleshooting, we refund your payment.
          </p>
          <p>
            The full rules are in our <TextLink to="/refund-policy">Refund Policy</TextLink>.
          </p>
        </>
      ),
    },
    {
      title: "Acceptable use",
      body: (
        <>
          <p>You agree not to use the Service to:</p>
          <ul className="list-disc pl-6">
            <li>break any law of the country you are in or of Nigeria;</li>
            <li>send spam, attack other networks or distribute malware;</li>
            <li>infringe copyright or other rights of others;</li>
            <li>resell or share the Service beyond your plan’s device limit.</li>
          </ul>
          <p>We may suspend a configuration that is used in breach of these rules, after telling you why.</p>
        </>
      ),
    },
    {
      title: "Third-party services",
      body: (
        <p>
          You remain responsible for following the terms of the streaming, music and shopping services you
          use.
          {` ${brandName}`} is not affiliated with DSTV, Showmax, Startimes, Spotify, Netflix, YouTube, Amazon
          or Apple; their names and logos belong to their owners.
        </p>
      ),
    },
    {
      title: "Availability and liability",
      body: (
        <>
          <p>
            We aim for continuous availability but the Service may occasionally be interrupted for maintenance
            or reasons outside our control. Our total liability to you for any claim is limited to the amount
            you paid us in the 12 months before the claim. Nothing in these terms limits rights you have under
            consumer law that cannot be limited.
          </p>
        </>
      ),
    },
    {
      title: "Privacy",
      body: (
        <p>
          We keep a zero-log policy for your browsing. How we handle the little personal data we need is
          described in our <TextLink to="/privacy">Privacy Policy</TextLink>.
        </p>
      ),
    },
    {
      title: "Contact",
      body: (
        <p>
          Questions about these terms? E-mail <MailLink email={supportEmail} /> or use our{" "}
          <TextLink to="/contact">contact form</TextLink>. Support is available 24/7 and we respond within 24
          hours.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Terms and Conditions"
      intro={
        <p>
          Please read these terms carefully. They explain what you can expect from us and what we expect from
          you.
        </p>
      }
      sections={sections}
    />
  );
}
