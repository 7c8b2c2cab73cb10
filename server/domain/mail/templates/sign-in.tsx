import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

export type SignInLink = EmailData<"account.sign-in">;

export function SignInEmail({ site, link }: { site: EmailSite; link: SignInLink }) {
  return (
    <EmailLayout
      site={site}
      preview={`Your sign-in link works once, for ${link.minutes} minutes.`}
      title={`Sign in to your ${site.BRAND_NAME} account`}
    >
      <Paragraph>Someone, perhaps you, asked to sign in to your {site.BRAND_NAME} account.</Paragraph>
      <LinkLine lead={`Sign in here (the link works once, for ${link.minutes} minutes):`} href={link.url} />
      <Paragraph>If it was not you, ignore this e-mail: nobody can sign in without this link.</Paragraph>
    </EmailLayout>
  );
}

export function signInEmail(site: EmailSite, link: SignInLink): Promise<RenderedEmail> {
  return renderEmail(`Your ${site.BRAND_NAME} sign-in link`, <SignInEmail site={site} link={link} />);
}
