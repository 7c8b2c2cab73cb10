import { LegalPage, MailLink, TextLink, type LegalSection } from "#app/components/marketing/legal-page.tsx";
import { LEGAL_PAGES } from "#app/components/marketing/legal-pages.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import type { Route } from "./+types/privacy";

export { handle } from "#core/static-page.ts";

export const meta: Route.MetaFunction = ({ matches }) => pageMeta(LEGAL_PAGES.privacy, matches);

export default function Privacy() {
  const { brandName, supportEmail } = usePublicConfig();
  const sections: LegalSection[] = [
    {
      title: "Our zero-log promise",
      body: (
        <p>
          {brandName} does not log the websites you visit, the content you stream, your DNS queries or the
          traffic that passes through our servers. Our VPN servers keep only what WireGuard needs to route
          packets while you are connected.
        </p>
      ),
    },
    {
      title: "What we collect",
      body: (
        <>
          <p>To sell and deliver the Service we keep:</p>
          <ul className="list-disc pl-6">
            <li>
              the name and e-mail address you give at checkout (phone, country and city only if you enter
              them);
            </li>
            <li>your plan, payment status, subscription dates and the device slots you have used;</li>
            <li>the keys of your WireGuard configuration (private keys are stored encrypted);</li>
            <li>messages you send us through the contact form or by e-mail.</li>
          </ul>
          <p>
            Card payments are handled by our payment provider over 256-bit SSL. We never see or store your
            card number.
          </p>
        </>
      ),
    },
    {
      title: "How we use it",
      body: (
        <ul className="list-disc pl-6">
          <li>to deliver your configuration file by download and by e-mail;</li>
          <li>to manage renewals, cancellations and refunds;</li>
          <li>to answer your support requests;</li>
          <li>to protect the Service against fraud and abuse (for example, rate limits on our forms).</li>
        </ul>
      ),
    },
    {
      title: "Who we share it with",
      body: (
        <p>
          We do not sell your data. We share only what is needed with the providers that run parts of the
          Service for us: our payment provider, our e-mail delivery provider and our hosting providers, each
          bound to protect it. We disclose data to authorities only when the law requires it, and we cannot
          hand over browsing logs we do not keep.
        </p>
      ),
    },
    {
      title: "Cookies and local storage",
      body: (
        <p>
          The public site uses no advertising or tracking cookies. Your browser’s local storage remembers the
          plan you selected and the details you typed during checkout so you do not lose them between steps.
          The setup video loads from YouTube (privacy-enhanced mode) only when you press play.
        </p>
      ),
    },
    {
      title: "How long we keep it",
      body: (
        <p>
          Account and payment records are kept for as long as your subscription is active and afterwards for
          as long as tax and accounting law requires. Contact messages are kept for up to 2 years.
          Configuration keys are deleted from our servers when your subscription ends.
        </p>
      ),
    },
    {
      title: "Your rights",
      body: (
        <p>
          You can ask for a copy of your data, its correction or its deletion at any time by writing to{" "}
          <MailLink email={supportEmail} />. We answer within 24 hours and complete requests within 30 days.
        </p>
      ),
    },
    {
      title: "Security",
      body: (
        <p>
          Connections use military-grade WireGuard encryption; our site is served over HTTPS; sensitive data
          is encrypted at rest and access to it is limited to staff who need it.
        </p>
      ),
    },
    {
      title: "Changes and contact",
      body: (
        <p>
          We will post any change here with a new effective date. Questions? Use our{" "}
          <TextLink to="/contact">contact form</TextLink> or e-mail <MailLink email={supportEmail} />.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Privacy Policy"
      intro={
        <p>
          Your privacy is the point of a VPN. This policy explains, in plain words, what little data{" "}
          {brandName} keeps, why, and what you can ask us to do with it.
        </p>
      }
      sections={sections}
    />
  );
}
