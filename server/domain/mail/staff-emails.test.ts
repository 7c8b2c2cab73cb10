// The e-mails to staff, rendered as they are queued: subject, plain-text part, links, and that
// what a stranger typed (an address, a message) reaches the HTML escaped.
import { describe, expect, it } from "vitest";
import { previewEmail } from "../../../tests/support/outbox.ts";
import type { MailMessage } from "./compose.ts";
import type { EmailData, EmailTemplate } from "./email-data.ts";

const site = {
  BRAND_NAME: "NaijaLink",
  PUBLIC_URL: "https://naijalink.example",
  SUPPORT_EMAIL: "support@naijalink.example",
};
const HOSTILE_ADDRESS = 'a"<b>@example.com';

const preview = <T extends EmailTemplate>(template: T, data: EmailData<T>) =>
  previewEmail(site, template, data);

function linksOf(email: MailMessage): string[] {
  return [...email.html!.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
}

/** Exactly these links in the HTML part, each shown in full in the text part; no customer footer. */
function expectLinks(email: MailMessage, expected: string[]) {
  expect(linksOf(email)).toEqual(expected.map((link) => link.replaceAll("&", "&amp;")));
  for (const link of expected) expect(email.text).toContain(link);
  expect(email.text).toContain("Sent by the NaijaLink site to its staff.");
  expect(email.text).not.toContain("/account");
  expect(email.text, "no markup of the template in the text part").not.toMatch(
    /<\/?(a|p|div|span|table|td|br)\b/i,
  );
}

/** The HTML carries the address as text, never as markup. */
function expectEscaped(email: MailMessage) {
  expect(email.html).not.toContain("<b>");
  expect(email.html).toContain("a&quot;&lt;b&gt;@example.com");
  expect(email.text).toContain(HOSTILE_ADDRESS);
}

describe("staff e-mails", () => {
  it("confirmation: the page that asks for the sign-up password (decision 065)", async () => {
    const url = "https://naijalink.example/admin/login?confirm=eyJhbGciOi.x-y_z";
    const email = await preview("auth.verify-email", { url });
    expect(email.subject).toBe("Confirm your NaijaLink account");
    expect(email.text).toContain("Welcome to NaijaLink");
    expect(email.text).toContain(
      `open this link and enter the password you chose when signing up (the link works for one hour): ${url}`,
    );
    expect(email.text).toContain('"Forgot your password?" on the sign-in page');
    expectLinks(email, [url]);
  });

  it("password reset: better-auth's reset link, for one hour", async () => {
    const url = "https://naijalink.example/api/auth/reset-password/tok123?callbackURL=%2Fadmin%2Flogin&x=1";
    const email = await preview("auth.password-reset", { url });
    expect(email.subject).toBe("Reset your NaijaLink password");
    expect(email.text).toContain("Someone asked to reset the password of your NaijaLink staff account.");
    expect(email.text).toContain(`Choose a new password here (the link works for one hour): ${url}`);
    expect(email.text).toContain("If it was not you, ignore this e-mail.");
    expectLinks(email, [url]);
  });

  it("existing account: nothing changed, and where to choose a new password", async () => {
    const email = await preview("auth.existing-account", {});
    expect(email.subject).toBe("Your NaijaLink account already exists");
    expect(email.text).toContain("which already has an account. Nothing was changed.");
    expect(email.text).toContain('"Forgot your password?" on https://naijalink.example/admin/login');
    expectLinks(email, ["https://naijalink.example/admin/login"]);
  });

  const dispute: EmailData<"dispute-notice"> = {
    disputeId: "dp_123",
    reason: "fraudulent",
    amount: "$7.99",
    subscription: { id: "sub-1", planId: "basic" },
    customerEmail: HOSTILE_ADDRESS,
    stripeCustomerId: "cus_1",
    paymentIntentId: "pi_1",
    respondBy: new Date("2026-12-01T00:00:00Z"),
  };

  it("dispute notice: the dispute's facts and where to answer it, no links", async () => {
    const email = await preview("dispute-notice", dispute);
    expect(email.subject).toBe("Payment disputed: $7.99 (fraudulent)");
    expect(email.text).toContain("The subscription it paid for is now disputed and its configs are revoked.");
    for (const line of [
      "Dispute: dp_123",
      "Reason: fraudulent",
      "Amount: $7.99",
      "Subscription: sub-1 (basic)",
      `Customer e-mail: ${HOSTILE_ADDRESS}`,
      "Stripe customer: cus_1",
      "Payment intent: pi_1",
      "Evidence due by: 2026-12-01T00:00:00.000Z",
    ])
      expect(email.text).toContain(line);
    expect(email.text).toContain("Answer it in the Stripe Dashboard (Payments → Disputes).");
    expectLinks(email, []);
    expectEscaped(email);
  });

  it("dispute notice before its payment is recorded", async () => {
    const email = await preview("dispute-notice", {
      ...dispute,
      reason: null,
      subscription: null,
      customerEmail: null,
      respondBy: null,
    });
    expect(email.subject).toBe("Payment disputed: $7.99 (no reason given)");
    expect(email.text).toContain("No payment for this charge is recorded yet");
    expect(email.text).toContain("Subscription: not recorded yet");
    expect(email.text).toContain("Customer e-mail: unknown");
    expect(email.text).not.toContain("Evidence due by");
  });

  it("contact message: the visitor's words as text, line breaks kept", async () => {
    const email = await preview("contact", {
      name: "Ada <script>",
      email: HOSTILE_ADDRESS,
      subject: "Showmax on my TV",
      message: "Hello,\ncan I use my config on a <i>smart</i> TV?",
    });
    expect(email.subject).toBe("[Contact] Showmax on my TV");
    expect(email.text).toContain("Name: Ada <script>");
    expect(email.text).toContain(`Email: ${HOSTILE_ADDRESS}`);
    expect(email.text).toContain("Hello,\ncan I use my config on a <i>smart</i> TV?");
    expect(email.text).toContain("Reply to this e-mail to answer Ada <script> directly.");
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("<i>");
    expect(linksOf(email)).toEqual([]);
    expectEscaped(email);
  });

  it("node-silent alert: which node, since when, what to check; no links", async () => {
    const lastSeenAt = new Date("2026-11-24T01:00:00Z");
    const email = await preview("staff-alert", {
      alert: "node-silent",
      node: { name: "ng-lagos-2", lastSeenAt, desiredPeers: 412 },
      now: new Date("2026-11-24T01:03:30Z"),
    });
    expect(email.subject).toBe("VPN node ng-lagos-2 has not reported for 3 minutes");
    expect(email.text).toContain("Its agent has not reported for 3 minutes.");
    expect(email.text).toContain("Last report: 2026-11-24T01:00:00.000Z");
    expect(email.text).toContain("Peers it should carry: 412");
    expectLinks(email, []);
  });

  it("outbox alert: how many wait and since when, and that it may arrive late itself", async () => {
    const email = await preview("staff-alert", {
      alert: "outbox-stuck",
      outbox: { pending: 37, oldestPendingAt: new Date("2026-11-24T01:00:00Z") },
      now: new Date("2026-11-24T01:12:00Z"),
    });
    expect(email.subject).toBe("E-mail is stuck: 37 waiting, the oldest for 12 minutes");
    expect(email.text).toContain(
      "37 e-mails are waiting in the outbox; the oldest was queued 12 minutes ago.",
    );
    expect(email.text).toContain("This e-mail went through the same outbox, so it may reach you late");
    expectLinks(email, []);
  });

  it("Configuration Pending alert: the waiting subscriptions by id, the count of the unlisted, no buyer's address", async () => {
    const listed = Array.from({ length: 20 }, (_, index) => ({
      subscriptionId: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
      checkoutSessionId: `cs_test_${index}`,
      planId: "pro-monthly",
      paidAt: new Date("2026-11-24T01:00:00Z"),
    }));
    const email = await preview("staff-alert", { alert: "configuration-pending", waiting: 23, listed });
    expect(email.subject).toBe("23 paid buyers are waiting for a config");
    expect(email.text).toContain("23 buyers have paid but no config could be issued");
    expect(email.text).toContain(
      "Subscription 00000000-0000-4000-8000-000000000000: pro-monthly, paid 2026-11-24T01:00:00.000Z, checkout cs_test_0",
    );
    expect(email.text).toContain("cs_test_19");
    expect(email.text).toContain("And 3 more.");
    expect(email.text).not.toContain("@example");
    expectLinks(email, []);
    const one = { alert: "configuration-pending" as const, waiting: 1, listed: listed.slice(0, 1) };
    expect((await preview("staff-alert", one)).subject).toBe("1 paid buyer is waiting for a config");
  });

  it("Sales stopped alert: each server and why it takes no device, and where to look; no links", async () => {
    const email = await preview("staff-alert", {
      alert: "sales-stopped",
      servers: [
        { name: "ng-lagos-1", explanation: "draining: it takes no new devices; its devices keep working." },
      ],
    });
    expect(email.subject).toBe("Sales are stopped: no VPN server can take a device");
    expect(email.text).toContain("ng-lagos-1");
    expect(email.text).toContain("draining: it takes no new devices");
    expect(email.text).toContain("npm run doctor");
    expectLinks(email, []);
  });

  it("streaming alert: which server and service, what was found and when; the reason escaped, no links", async () => {
    const email = await preview("staff-alert", {
      alert: "streaming-refused",
      server: "ng-lagos-1",
      service: "Geo <TV>",
      reason: 'answered 302 (a redirect to /blocked?x="<script>"), not 200',
      checkedAt: new Date("2026-11-29T05:00:00Z"),
    });
    expect(email.subject).toBe("VPN server ng-lagos-1: Geo <TV> does not work through it");
    expect(email.text).toContain('answered 302 (a redirect to /blocked?x="<script>"), not 200');
    expect(email.text).toContain("2026-11-29 05:00 UTC");
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("Geo <TV>");
    expectLinks(email, []);
  });

  it("books alert: each new difference with its fix, the count beyond those listed; no links", async () => {
    const differences = [
      {
        detail: "refund re_1 in Stripe (3.00 USD of charge ch_1, 2026-11-23) is not in the books",
        fix: "resend the charge's charge.refunded event",
      },
      {
        detail: "charge ch_2 (order AAAA-BBBB-CCCC) is 10.99 USD in the books but 9.99 USD in Stripe",
        fix: "check it",
      },
    ];
    const email = await preview("staff-alert", {
      alert: "ledger-differences",
      differences,
      total: 3,
      now: new Date("2026-11-24T03:00:00Z"),
    });
    expect(email.subject).toBe("The books differ from Stripe in 3 new places");
    expect(email.text).toContain("found 3 differences not reported before");
    expect(email.text).toContain(`${differences[0]!.detail}: ${differences[0]!.fix}`);
    expect(email.text).toContain(differences[1]!.detail);
    expect(email.text).toContain("And 1 more on /admin.");
    expectLinks(email, []);
    const one = {
      alert: "ledger-differences" as const,
      differences: differences.slice(0, 1),
      total: 1,
      now: new Date(),
    };
    expect((await preview("staff-alert", one)).subject).toBe("The books differ from Stripe in 1 new place");
  });
});
