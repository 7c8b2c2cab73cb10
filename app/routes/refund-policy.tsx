import { LegalPage, MailLink, TextLink, type LegalSection } from "#app/components/marketing/legal-page.tsx";
import { LEGAL_PAGES } from "#app/components/marketing/legal-pages.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/refund-policy";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = ({ matches }) => pageMeta(LEGAL_PAGES.refundPolicy, matches);

export default function RefundPolicy() {
  const { brandName, supportEmail } = usePublicConfig();
  const sections: LegalSection[] = [
    {
      title: "The 7-day guarantee",
      body: (
        <p>
          Every {brandName} plan comes with a 7-day guarantee. If you have not activated your configuration,
          you can ask for a full refund within 7 days of purchase, no questions asked. If you cannot access
          the sites you wanted within 7 days and have not used significant data, you also get a full refund.
        </p>
      ),
    },
    {
      title: "What counts as activation",
      body: (
        <p>
          A configuration counts as activated once its QR code has been shown on your page, its .conf file
          downloaded from your page, or your device first connects to our server. Before activation the 7-day
          guarantee applies in full.
        </p>
      ),
    },
    {
      title: "After activation: the 72-hour rule",
      body: (
        <>
          <p>
            Once your configuration is activated, tell us about any problem and we will troubleshoot it with
            you. If we cannot provide a working Nigerian connection after 72 hours of troubleshooting, we
            refund your payment in full.
          </p>
          <p>
            A refund is not given after activation when the connection works but a third-party service changes
            its catalogue, prices or rules.
          </p>
        </>
      ),
    },
    {
      title: "Subscriptions and cancellation",
      body: (
        <p>
          Monthly and yearly plans renew automatically until cancelled. Cancel any time by e-mailing{" "}
          <MailLink email={supportEmail} />; you keep access until the end of the period already paid. A
          renewal charged within the last 7 days that you have not used can be refunded on request.
        </p>
      ),
    },
    {
      title: "Refund in one click from your account",
      body: (
        <p>
          Within 7 days of purchase and before any configuration of it is activated, sign in to{" "}
          <TextLink to="/account">your account</TextLink> and press &ldquo;Refund this purchase&rdquo;. The
          payment is refunded in full at once, the plan ends (its configuration stops working and it will not
          renew) and you get a confirmation by e-mail. When a purchase is outside these rules, your account
          says why and points you to us instead.
        </p>
      ),
    },
    {
      title: "How to ask for a refund",
      body: (
        <p>
          For any other refund, e-mail <MailLink email={supportEmail} /> or use our{" "}
          <TextLink to="/contact">contact form</TextLink> with the e-mail address you paid with. We answer
          within 24 hours. Approved refunds go back to the original card within 5 to 10 business days; your
          configuration stops working when the refund is issued.
        </p>
      ),
    },
    {
      title: "Related terms",
      body: (
        <p>
          This policy is part of our <TextLink to="/terms">Terms and Conditions</TextLink>, which also
          describe the 24-hour no-access refund.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Refund Policy"
      intro={
        <p>
          We want you to be happy with {brandName}. If it does not work for you, here is how we make it right.
        </p>
      }
      sections={sections}
    />
  );
}
