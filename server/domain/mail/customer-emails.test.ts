// Each customer e-mail, rendered as it is queued: its subject, its plain-text part and the links
// of both parts (a preview of every template).
import { describe, expect, it } from "vitest";
import { previewEmail } from "../../../tests/support/outbox.ts";
import type { MailMessage } from "./compose.ts";
import { queueCancelledEmail } from "./customer-emails.ts";
import type { EmailData, EmailRequest, EmailTemplate } from "./email-data.ts";

const site = {
  BRAND_NAME: "NaijaLink",
  PUBLIC_URL: "https://naijalink.example",
  SUPPORT_EMAIL: "support@naijalink.example",
};
const ACCOUNT = "https://naijalink.example/account";
const PRICING = "https://naijalink.example/pricing";
const SUPPORT = "mailto:support@naijalink.example";
const DOWNLOAD = "https://naijalink.example/api/configs/tok_0123456789abcdef";

const preview = <T extends EmailTemplate>(template: T, data: EmailData<T>) =>
  previewEmail(site, template, data);

/** The href of every link in the HTML part, in order. */
function linksOf(email: MailMessage): string[] {
  return [...email.html!.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);
}

/** Every link of the HTML part, and the text part shows each web address in full. */
function expectLinks(email: MailMessage, expected: string[]) {
  expect(new Set(linksOf(email))).toEqual(new Set([...expected, ACCOUNT, SUPPORT]));
  for (const link of [...expected, ACCOUNT]) expect(email.text).toContain(link);
  expect(email.text).toContain("support@naijalink.example");
  expect(email.text).not.toMatch(/<[a-z]/i);
}

const delivery: EmailData<"vpn-config"> = {
  planName: "Pro Monthly",
  oneTime: false,
  endsAt: new Date("2026-12-23T10:00:00Z"),
  slot: 1,
  deviceName: "Device 1",
  fileName: "NaijaLink1.conf",
  downloadUrl: DOWNLOAD,
  clientConfig: "[Interface]\nPrivateKey = abc\n",
};

describe("customer e-mails", () => {
  it("receipt: the amount, plan, order number and renewal date", async () => {
    const email = await preview("receipt", {
      planName: "Pro Yearly",
      amount: "$79.99",
      orderNumber: "a1B2c3D4e5",
      paidAt: new Date("2026-11-23T10:00:00Z"),
      oneTime: false,
      endsAt: new Date("2027-11-23T10:00:00Z"),
    });
    expect(email.subject).toBe("Your NaijaLink receipt: Pro Yearly, order a1B2c3D4e5");
    expect(email.text).toContain("Order number: a1B2c3D4e5");
    expect(email.text).toContain("Amount paid: $79.99");
    expect(email.text).toContain("Plan: Pro Yearly");
    expect(email.text).toContain("Renews on: November 23, 2027");
    expectLinks(email, []);
  });

  it("config delivery: the download link, the QR code inline, the import steps", async () => {
    const email = await preview("vpn-config", delivery);
    expect(email.subject).toBe("Your NaijaLink VPN config (NaijaLink1.conf)");
    expect(email.text).toContain(`Download your config: ${DOWNLOAD}`);
    expect(email.text).toContain("Import the attached NaijaLink1.conf with Add Tunnel");
    expect(email.text).toContain("Renews on: December 23, 2026");
    expect(email.text).not.toContain("Was this you?");
    expect(email.html).toContain('src="cid:config-qr"');
    expectLinks(email, [DOWNLOAD]);
  });

  it("config delivery offers the same device on port 443 when its server has it", async () => {
    const alternate = { port: 443, downloadUrl: `${DOWNLOAD}?port=443` };
    const email = await preview("vpn-config", { ...delivery, alternatePort: alternate });
    expect(email.text).toContain("Can't connect on this network? Use port 443");
    expect(email.text).toContain(`Config for port 443: ${alternate.downloadUrl}`);
    expect(email.text).toContain("no extra device slot");
    expectLinks(email, [DOWNLOAD, alternate.downloadUrl]);
    expect((await preview("vpn-config", delivery)).text).not.toContain("Use port");
  });

  it("config update: each out-of-date device's new link, and the account page", async () => {
    const email = await preview("config-update", {
      planName: "Pro Monthly",
      devices: [
        { deviceName: "Ada's phone", fileName: "NaijaLink1.conf", downloadUrl: DOWNLOAD },
        {
          deviceName: "Laptop",
          fileName: "NaijaLink2.conf",
          downloadUrl: `${DOWNLOAD}2`,
          alternatePort: { port: 443, downloadUrl: `${DOWNLOAD}2?port=443` },
        },
      ],
    });
    expect(email.subject).toBe("Download your NaijaLink config again: its server has new settings");
    expect(email.text).toContain(`Ada's phone (NaijaLink1.conf): ${DOWNLOAD}`);
    expect(email.text).toContain(`Laptop (NaijaLink2.conf): ${DOWNLOAD}2`);
    expect(email.text).toContain("in place of the old one");
    expectLinks(email, [DOWNLOAD, `${DOWNLOAD}2`, `${DOWNLOAD}2?port=443`]);
  });

  it("config delivery of a pass says until when it gives access", async () => {
    const email = await preview("vpn-config", { ...delivery, planName: "Unlock Pass", oneTime: true });
    expect(email.text).toContain("Access until: December 23, 2026");
  });

  it("device added: the config of a later device asks whether it was the customer", async () => {
    const email = await preview("vpn-config", {
      ...delivery,
      slot: 2,
      deviceName: "Device 2",
      fileName: "NaijaLink2.conf",
    });
    expect(email.subject).toBe("Device 2 added: your NaijaLink VPN config (NaijaLink2.conf)");
    expect(email.text).toContain("Device 2 was added to your plan");
    expect(email.text).toContain("Was this you? If you did not add Device 2");
    expect(email.text).toContain(`Your account: ${ACCOUNT}`);
    expectLinks(email, [DOWNLOAD]);
  });

  it("device revoked: which device, and what to do if it was not the customer", async () => {
    const email = await preview("device-revoked", {
      deviceName: "Ada's phone",
      planName: "Pro Monthly",
      at: new Date("2026-11-23T10:00:00Z"),
    });
    expect(email.subject).toBe("Ada's phone was removed from your NaijaLink plan");
    expect(email.text).toContain("Its config no longer connects");
    expect(email.text).toContain("Was this you? If you did not remove this device");
    expect(email.text).toContain("Date: November 23, 2026");
    expectLinks(email, []);
  });

  it("new keys: the old config stopped working, the new one is on the account page", async () => {
    const email = await preview("device-rekeyed", {
      deviceName: "Device 2",
      planName: "Pro Monthly",
      at: new Date("2026-11-23T10:00:00Z"),
    });
    expect(email.subject).toBe("New keys for Device 2 on your NaijaLink plan");
    expect(email.text).toContain("The old config of this device stopped working");
    expect(email.text).toContain("Was this you? If you did not ask for new keys");
    expectLinks(email, []);
  });

  it("device moved by its owner: where it is now, the new config to download, was this you?", async () => {
    const email = await preview("device-moved", {
      deviceName: "Ada's laptop",
      planName: "Pro Monthly",
      at: new Date("2026-11-23T10:00:00Z"),
      location: "Abuja, Nigeria",
    });
    expect(email.subject).toBe("Ada's laptop moved to Abuja, Nigeria on your NaijaLink plan");
    expect(email.text).toContain("The old config of this device stopped working");
    expect(email.text).toContain("Download the new config from your account page");
    expect(email.text).toContain("Location: Abuja, Nigeria");
    expect(email.text).toContain("Was this you? If you did not move this device");
    expectLinks(email, []);
  });

  it("device moved by us off a server: why, and the new config, without asking whether it was them", async () => {
    const email = await preview("device-relocated", {
      deviceName: "Device 2",
      planName: "Pro Monthly",
      at: new Date("2026-11-23T10:00:00Z"),
      location: "Lagos, Nigeria",
    });
    expect(email.subject).toBe("NaijaLink moved Device 2 to another server: download its new config");
    expect(email.text).toContain("Its server is being taken out of service");
    expect(email.text).toContain("Location: Lagos, Nigeria");
    expect(email.text).not.toContain("Was this you?");
    expectLinks(email, []);
  });

  const yearly = { planName: "Pro Yearly", price: "$79.99/year", date: new Date("2027-11-23T10:00:00Z") };

  it("renewal reminder: the date and the price of the renewal", async () => {
    const email = await preview("renewal-reminder", yearly);
    expect(email.subject).toBe("Your NaijaLink Pro Yearly renews on November 23, 2027");
    expect(email.text).toContain("On November 23, 2027 we will charge $79.99/year");
    expectLinks(email, []);
  });

  it("pass ending: the date it ends and where to choose a plan", async () => {
    const email = await preview("pass-ending", {
      planName: "Unlock Pass",
      price: "$9.99",
      date: new Date("2026-11-30T10:00:00Z"),
    });
    expect(email.subject).toBe("Your NaijaLink Unlock Pass ends on November 30, 2026");
    expect(email.text).toContain("Your configs stop connecting on November 30, 2026");
    expect(email.text).toContain(`Plans: ${PRICING}`);
    expectLinks(email, [PRICING]);
  });

  it("payment failed: what failed and where to update the payment method", async () => {
    const email = await preview("payment-failed", {
      ...yearly,
      planName: "Pro Monthly",
      price: "$7.99/month",
    });
    expect(email.subject).toBe("Action needed: your NaijaLink payment did not go through");
    expect(email.text).toContain("We could not charge $7.99/month for your Pro Monthly");
    expect(email.text).toContain(`Update your payment method: ${ACCOUNT}`);
    expectLinks(email, []);
  });

  it("cancelled: until when the configs work, or that they stopped", async () => {
    const now = new Date("2026-11-23T10:00:00Z");
    const queued: EmailRequest[] = [];
    const deps = {
      config: site,
      mail: { enqueue: async (_: unknown, email: EmailRequest) => `${queued.push(email)}` },
    };
    /** What cancelling a subscription that ends at `expiresAt` queues, as the customer reads it. */
    async function cancelled(expiresAt: Date) {
      const subscription = {
        customerEmail: "ada@example.com",
        planId: "pro-yearly",
        planType: "pro_yearly" as const,
        expiresAt,
      };
      await queueCancelledEmail({} as never, deps, subscription, now);
      const email = queued.at(-1)!;
      expect(email.template).toBe("subscription-cancelled");
      return preview("subscription-cancelled", email.data as EmailData<"subscription-cancelled">);
    }
    const later = await cancelled(yearly.date);
    expect(later.subject).toBe("Your NaijaLink Pro Yearly is cancelled");
    expect(later.text).toContain("Your configs keep working until November 23, 2027");
    expect(later.text).toContain("Resume it on your account page");
    expectLinks(later, []);
    const ended = await cancelled(now);
    expect(ended.text).toContain("Your configs stopped working on November 23, 2026");
    expect(ended.text).not.toContain("Resume");
  });

  it("expired: when it ended and where to choose a plan", async () => {
    const email = await preview("subscription-expired", { ...yearly, planName: "Basic Monthly" });
    expect(email.subject).toBe("Your NaijaLink Basic Monthly has ended");
    expect(email.text).toContain("Your configs stopped working on November 23, 2027");
    expectLinks(email, [PRICING]);
  });

  it("resumed: the plan renews again, when and for how much", async () => {
    const email = await preview("subscription-resumed", yearly);
    expect(email.subject).toBe("Your NaijaLink Pro Yearly renews again");
    expect(email.text).toContain("it is no longer cancelled");
    expect(email.text).toContain("On November 23, 2027 we will charge $79.99/year");
    expectLinks(email, []);
  });

  it("refunded: the amount, that the plan ended and when, and where to buy again", async () => {
    const refund: EmailData<"subscription-refunded"> = {
      kind: "refund",
      planName: "Pro Monthly",
      orderNumber: "3F2A-9C1B-7D04",
      amount: "$7.99",
      at: new Date("2026-11-24T10:00:00Z"),
      endedAt: new Date("2026-11-24T10:00:00Z"),
    };
    const email = await preview("subscription-refunded", refund);
    expect(email.subject).toBe("Your NaijaLink Pro Monthly is refunded: $7.99");
    expect(email.text).toContain("Amount refunded: $7.99");
    expect(email.text).toContain("Refunded on: November 24, 2026");
    expect(email.text).toContain("Your plan ended on November 24, 2026");
    expect(email.text).toContain("will not renew");
    expectLinks(email, [PRICING]);

    const dispute = await preview("subscription-refunded", { ...refund, kind: "dispute" });
    expect(dispute.subject).toBe("Your NaijaLink payment was disputed: Pro Monthly has ended");
    expect(dispute.text).toContain("Amount disputed: $7.99");
    expect(dispute.text).toContain("you disputed this payment");
    expectLinks(dispute, [PRICING]);
  });

  it("sign-in: the /account page link (not better-auth's verify URL), once, for 15 minutes", async () => {
    const email = await preview("account.sign-in", { url: `${ACCOUNT}?token=tok_abc`, minutes: 15 });
    expect(email.subject).toBe("Your NaijaLink sign-in link");
    expect(email.text).toContain("Someone, perhaps you, asked to sign in to your NaijaLink account.");
    expect(email.text).toContain(
      `Sign in here (the link works once, for 15 minutes): ${ACCOUNT}?token=tok_abc`,
    );
    expect(email.text).toContain("nobody can sign in without this link");
    expect(email.text).not.toContain("/api/account/auth");
    expectLinks(email, [`${ACCOUNT}?token=tok_abc`]);
  });

  it("support reply: Re: the subject once, staff's text line by line, the customer's message quoted", async () => {
    const reply = {
      name: "Ada Obi",
      body: "Hello Ada,\nYes: install WireGuard on the TV.",
      original: { message: "Hello,\ncan I use it on my TV?", sentAt: new Date("2026-11-20T09:30:00Z") },
    };
    const email = await preview("support-reply", { ...reply, subject: "Showmax on my TV" });
    expect(email.subject).toBe("Re: Showmax on my TV");
    expect(email.text).toContain("Hello Ada,\nYes: install WireGuard on the TV.");
    expect(email.text).toContain(
      "On Fri, 20 Nov 2026 09:30:00 GMT, you wrote:\n> Hello,\n> can I use it on my TV?",
    );
    expectLinks(email, []);
    expect((await preview("support-reply", { ...reply, subject: "RE: an answer" })).subject).toBe(
      "RE: an answer",
    );
  });

  it("escapes what it is given instead of writing it into the HTML as markup", async () => {
    const email = await preview("device-revoked", {
      deviceName: '<img src=x onerror="alert(1)">',
      planName: "Pro Monthly",
      at: new Date(),
    });
    expect(email.html).not.toContain("<img src=x");
    expect(email.html).toContain("&lt;img src=x");
  });
});
