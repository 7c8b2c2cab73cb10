import { Fragment } from "react";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, Facts, Paragraph, type EmailSite } from "./layout.tsx";

/** A visitor's message from the contact form, for the support inbox (a reply goes to the visitor). */
export type ContactFormMessage = EmailData<"contact">;

export function ContactMessageEmail({ site, message }: { site: EmailSite; message: ContactFormMessage }) {
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`${message.name}: ${message.subject}`}
      title="New message from the contact form"
    >
      <Facts
        rows={[
          ["Name", message.name],
          ["Email", message.email],
          ["Subject", message.subject],
        ]}
      />
      <Paragraph>
        {message.message.split("\n").map((line, index) => (
          <Fragment key={index}>
            {index > 0 && <br />}
            {line}
          </Fragment>
        ))}
      </Paragraph>
      <Paragraph>Reply to this e-mail to answer {message.name} directly.</Paragraph>
    </EmailLayout>
  );
}

export function contactMessageEmail(site: EmailSite, message: ContactFormMessage): Promise<RenderedEmail> {
  return renderEmail(`[Contact] ${message.subject}`, <ContactMessageEmail site={site} message={message} />);
}
