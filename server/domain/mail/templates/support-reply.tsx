import { Fragment } from "react";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, Paragraph, type EmailSite } from "./layout.tsx";

/** Staff's answer to a contact-form message, with the message it answers quoted below. */
export type SupportReply = EmailData<"support-reply">;

function Lines({ text }: { text: string }) {
  return text.split(/\r?\n/).map((line, index) => (
    <Fragment key={index}>
      {index > 0 && <br />}
      {line}
    </Fragment>
  ));
}

export function SupportReplyEmail({ site, reply }: { site: EmailSite; reply: SupportReply }) {
  return (
    <EmailLayout site={site} preview={reply.body.slice(0, 120)} title={reply.subject}>
      <Paragraph>Hello {reply.name},</Paragraph>
      <Paragraph>
        <Lines text={reply.body} />
      </Paragraph>
      <Paragraph>
        On {reply.original.sentAt.toUTCString()}, you wrote:
        <br />
        <Lines text={reply.original.message.replace(/^/gm, "> ")} />
      </Paragraph>
    </EmailLayout>
  );
}

/** "Re: subject", not doubled when the subject already starts with "Re:". */
export const replySubject = (subject: string) => (/^re:/i.test(subject) ? subject : `Re: ${subject}`);

export function supportReplyEmail(site: EmailSite, reply: SupportReply): Promise<RenderedEmail> {
  return renderEmail(
    replySubject(reply.subject),
    <SupportReplyEmail site={site} reply={{ ...reply, subject: replySubject(reply.subject) }} />,
  );
}
