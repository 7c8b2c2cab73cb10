import { plainTextSelectors, render } from "@react-email/render";
import { compile } from "html-to-text";
import type { ReactElement } from "react";

export interface MailAttachment {
  filename: string;
  content: string | Buffer;
  contentType: string;
  /** Shown inline where the HTML part says `cid:{contentId}`. */
  contentId?: string;
}

/** A template's output: what the transport sends besides the addresses. */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
  attachments?: MailAttachment[];
}

/**
 * react-email's `toPlainText`, compiled once: it passes its options to html-to-text's `convert`,
 * which builds its selector tree again for every message. Headings keep their case (html-to-text
 * writes them in capitals by default); the text part should read like the HTML.
 */
const toPlainText = compile({
  wordwrap: false,
  selectors: [
    ...plainTextSelectors,
    ...["h1", "h2", "h3"].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
});

/** One render of the component: the HTML part, and the text part derived from that same HTML. */
export async function renderEmail(subject: string, element: ReactElement): Promise<RenderedEmail> {
  const html = await render(element);
  const text = toPlainText(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { subject, html, text };
}
