// The /contact form (docs/product.md §2.8): idle → Sending... → cleared on success; every failure
// says how else to reach us, in a message under the button. The markup is
// app/components/marketing/contact-form.tsx.
import { noticeAfter } from "./notice.ts";

const FIELDS = ["name", "email", "subject", "message"] as const;

export function enhanceContactForm(form: HTMLFormElement): void {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const label = button?.querySelector<HTMLElement>("[data-label]");
  const idleLabel = label?.textContent ?? "";
  const supportEmail = form.dataset.supportEmail ?? "";
  const notice = noticeAfter(button ?? form);
  const fail = (description: string) => notice.show({ type: "error", title: "Error", description });
  let sending = false;

  const setSending = (value: boolean) => {
    sending = value;
    if (button) button.disabled = value;
    if (label) label.textContent = value ? "Sending..." : idleLabel;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (sending) return;
    notice.clear();
    const data = new FormData(form);
    const values = Object.fromEntries(FIELDS.map((field) => [field, String(data.get(field) ?? "")]));
    if (Object.values(values).some((value) => !value.trim())) {
      fail("Please fill in all fields.");
      return;
    }
    const emailInput = form.elements.namedItem("email") as HTMLInputElement | null;
    if (emailInput && !emailInput.validity.valid) {
      fail("Please enter a valid email address");
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
          fail(body.message);
          return;
        }
      }
      if (!response.ok) throw new Error(`send-contact-email answered ${response.status}`);
      form.reset();
      notice.show({
        type: "success",
        title: "Message Sent!",
        description: "Thank you for contacting us. We'll get back to you within 24 hours.",
      });
    } catch {
      fail(`Failed to send message. Please try again or email us directly at ${supportEmail}.`);
    } finally {
      setSending(false);
    }
  });
}
