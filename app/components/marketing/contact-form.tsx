import { Send } from "lucide-react";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label, Textarea } from "#app/components/ui/input.tsx";
import { NOTICE_CLASS, NOTICE_TITLE_CLASS } from "#app/lib/notice.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";

type Field = "name" | "email" | "subject" | "message";

// Mirrors server/domain/contact (the server checks again).
const MAX_LENGTH: Record<Field, number> = { name: 100, email: 254, subject: 200, message: 5000 };

/**
 * The markup of the contact form; /contact is a static page, so validation, Sending... and the
 * toasts are the enhancement script's (app/enhance/contact-form.ts). Without JavaScript the
 * browser posts it to the page's action; `refusal` is that action's answer to a refused form.
 */
export function ContactForm({
  id,
  refusal,
}: {
  id?: string;
  refusal?: { message: string; values: Record<string, string> };
}) {
  const { supportEmail } = usePublicConfig();
  const fields: Array<{
    field: Field;
    label: string;
    type?: string;
    autoComplete?: string;
    placeholder: string;
  }> = [
    { field: "name", label: "Full Name", autoComplete: "name", placeholder: "Your full name" },
    {
      field: "email",
      label: "Email Address",
      type: "email",
      autoComplete: "email",
      placeholder: "you@example.com",
    },
    { field: "subject", label: "Subject", placeholder: "How can we help?" },
  ];

  return (
    <form
      id={id}
      method="post"
      action="/contact"
      noValidate
      className="flex flex-col gap-5"
      aria-label="Contact form"
      data-contact-form=""
      data-support-email={supportEmail}
    >
      {fields.map(({ field, label, type, autoComplete, placeholder }) => (
        <div key={field} className="flex flex-col gap-2">
          <Label htmlFor={`contact-${field}`}>{label}</Label>
          <Input
            id={`contact-${field}`}
            name={field}
            type={type ?? "text"}
            autoComplete={autoComplete}
            placeholder={placeholder}
            maxLength={MAX_LENGTH[field]}
            defaultValue={refusal?.values[field]}
            aria-required="true"
          />
        </div>
      ))}
      <div className="flex flex-col gap-2">
        <Label htmlFor="contact-message">Message</Label>
        <Textarea
          id="contact-message"
          name="message"
          rows={6}
          placeholder="Tell us what you need help with"
          maxLength={MAX_LENGTH.message}
          defaultValue={refusal?.values.message}
          aria-required="true"
        />
      </div>
      <Button type="submit" size="lg" aria-live="polite">
        <Send aria-hidden="true" />
        <span data-label="">Send Message</span>
      </Button>
      {refusal ? (
        <div role="alert" data-form-refusal="">
          <div className={NOTICE_CLASS.alert}>
            <p className={NOTICE_TITLE_CLASS}>Error</p>
            <p>{refusal.message}</p>
          </div>
        </div>
      ) : null}
    </form>
  );
}
