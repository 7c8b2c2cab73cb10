// The /contact form (spec §4/§5/§8): idle → Sending... → cleared on success; every failure
// says how else to reach us. The markup is app/components/marketing/contact-form.tsx.
import { toast } from "./toast.ts";

const FIELDS = ["name", "email", "subject", "message"] as const;

export function enhanceContactForm(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const label = button?.querySelector<HTMLElement>("[data-label]");
  const idleLabel = label?.textContent ?? "";
  const supportEmail = form.dataset.supportEmail ?? "";
  let sending = false;

  const setSending = (value: boolean) => {
    sending = value;
    if (button) button.disabled = value;
    if (label) label.textContent = value ? "Sending..." : idleLabel;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (sending) return;
    const data = new FormData(form);
    const values = Object.fromEntries(FIELDS.map((field) => [field, String(data.get(field) ?? "")]));
    if (Object.values(values).some((value) => !value.trim())) {
      toast.error("Error", { description: "Please fill in all fields" });
      return;
    }
    const emailInput = form.elements.namedItem("email") as HTMLInputElement | null;
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
      form.reset();
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
  });
}
