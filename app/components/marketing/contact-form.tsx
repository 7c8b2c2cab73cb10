import { Send } from "lucide-react";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label, Textarea } from "#app/components/ui/input.tsx";
import { usePublicConfig } from "#app/lib/public-config.ts";

const EMPTY = { name: "", email: "", subject: "", message: "" };
type Field = keyof typeof EMPTY;

// Mirrors server/domain/contact (the server checks again).
const MAX_LENGTH: Record<Field, number> = { name: 100, email: 254, subject: 200, message: 5000 };

/** Spec §4/§5/§8: idle → Sending... → cleared on success; every failure says how else to reach us. */
export function ContactForm({ id }: { id?: string }) {
  const { supportEmail } = usePublicConfig();
  const [values, setValues] = useState(EMPTY);
  const [sending, setSending] = useState(false);

  const update = (field: Field) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    if (Object.values(values).some((value) => !value.trim())) {
      toast.error("Error", { description: "Please fill in all fields" });
      return;
    }
    const emailInput = event.currentTarget.elements.namedItem("email") as HTMLInputElement | null;
    if (emailInput && !emailInput.validity.valid) {
      toast.error("Error", { description: "Please enter a valid email address" });
      emailInput.focus();
      return;
    }
    setSending(true);
    try {
      const response = await fetch("/api/send-contact-email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(values),
      });
      if (response.status === 400) {
        const body = (await response.json().catch(() => null)) as { message?: string } | null;
        if (body?.message) {
          toast.error("Error", { description: body.message });
          return;
        }
      }
      if (!response.ok) throw new Error(`send-contact-email answered ${response.status}`);
      setValues(EMPTY);
      toast.success("Message Sent!", {
        description: "Thank you for contacting us. We'll get back to you within 24 hours.",
      });
    } catch {
      toast.error("Error", {
        description: `Failed to send message. Please try again or email us directly at ${supportEmail}.`,
      });
    } finally {
      setSending(false);
    }
  };

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
    <form id={id} onSubmit={submit} noValidate className="flex flex-col gap-5" aria-label="Contact form">
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
            aria-required="true"
            value={values[field]}
            onChange={update(field)}
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
          aria-required="true"
          value={values.message}
          onChange={update("message")}
        />
      </div>
      <Button type="submit" size="lg" disabled={sending} aria-live="polite">
        <Send aria-hidden="true" />
        {sending ? "Sending..." : "Send Message"}
      </Button>
    </form>
  );
}
