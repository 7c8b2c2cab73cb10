import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

// The e-mails of a staff account (server/domain/auth). Each link is the one better-auth
// gives; the confirmation page asks for the sign-up password, so the link alone
// confirms nothing.

function staffLoginUrl(site: EmailSite): string {
  return `${site.PUBLIC_URL}/admin/login`;
}

export function ConfirmationEmail({ site, url }: { site: EmailSite; url: string }) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview="Open the link and enter the password you chose when signing up."
      title={`Welcome to ${site.BRAND_NAME}`}
    >
      <LinkLine
        lead="To finish creating your account, open this link and enter the password you chose when signing up (the link works for one hour):"
        href={url}
      />
      <Paragraph>
        If you did not sign up, someone else used your address: ignore this e-mail, or, to use the account
        yourself, choose your own password with &quot;Forgot your password?&quot; on the sign-in page.
      </Paragraph>
    </EmailLayout>
  );
}

export function confirmationEmail(
  site: EmailSite,
  { url }: EmailData<"auth.verify-email">,
): Promise<RenderedEmail> {
  return renderEmail(`Confirm your ${site.BRAND_NAME} account`, <ConfirmationEmail site={site} url={url} />);
}

export function PasswordResetEmail({ site, url }: { site: EmailSite; url: string }) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview="The link works for one hour."
      title={`Reset your ${site.BRAND_NAME} password`}
    >
      <Paragraph>Someone asked to reset the password of your {site.BRAND_NAME} staff account.</Paragraph>
      <LinkLine lead="Choose a new password here (the link works for one hour):" href={url} />
      <Paragraph>If it was not you, ignore this e-mail.</Paragraph>
    </EmailLayout>
  );
}

export function passwordResetEmail(
  site: EmailSite,
  { url }: EmailData<"auth.password-reset">,
): Promise<RenderedEmail> {
  return renderEmail(`Reset your ${site.BRAND_NAME} password`, <PasswordResetEmail site={site} url={url} />);
}

export function ExistingAccountEmail({ site }: { site: EmailSite }) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview="Nothing was changed."
      title={`Your ${site.BRAND_NAME} account already exists`}
    >
      <Paragraph>
        Someone, perhaps you, tried to sign up for {site.BRAND_NAME} with this address, which already has an
        account. Nothing was changed.
      </Paragraph>
      <LinkLine
        lead={`If it was you and you do not know the password, choose a new one with "Forgot your password?" on`}
        href={staffLoginUrl(site)}
      />
      <Paragraph>If it was not you, ignore this e-mail.</Paragraph>
    </EmailLayout>
  );
}

export function existingAccountEmail(site: EmailSite): Promise<RenderedEmail> {
  return renderEmail(`Your ${site.BRAND_NAME} account already exists`, <ExistingAccountEmail site={site} />);
}
