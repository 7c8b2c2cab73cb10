import { z } from "zod";

// What the outbox stores of each e-mail: the name of its template and the data it is rendered
// from (decision 098). The outbox worker renders it when it sends, so no transaction waits for
// React. One schema per template: `enqueueEmail` encodes the data with it (JSON-safe, dates as
// ISO text) and the worker decodes it with it. Everything a template shows is in its data,
// `now` included: a message rendered later reads as it would have when it was queued.

const timestamp = z.codec(z.iso.datetime(), z.date(), {
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString(),
});

const planPeriod = z.object({
  planName: z.string(),
  /** The plan's price with its period, e.g. "$79.99/year". */
  price: z.string(),
  /** When the period renews, ends or ended. */
  date: timestamp,
});

const deviceNotice = z.object({
  deviceName: z.string(),
  planName: z.string(),
  at: timestamp,
  /** Where a moved device is now, as a buyer reads it ("Lagos, Nigeria"). */
  location: z.string().optional(),
});

/** `moved`: the customer moved it on the account page; `relocated`: staff moved it off a server. */
export type DeviceChange = "revoked" | "rekeyed" | "moved" | "relocated";

const link = z.object({ url: z.url() });

/** The same device on its server's alternate port ("Can't connect on this network? Use port 443"). */
const alternatePort = z.object({ port: z.number().int().min(1).max(65_535), downloadUrl: z.url() });

/** A staff alert about buyers waiting for a config names at most this many; the count says how many wait. */
export const LISTED_WAITING_BUYERS = 20;

export const EMAIL_DATA = {
  receipt: z.object({
    planName: z.string(),
    /** Formatted with its currency, e.g. "$79.99". */
    amount: z.string(),
    orderNumber: z.string(),
    paidAt: timestamp,
    oneTime: z.boolean(),
    endsAt: timestamp,
  }),
  /** A device's config; for a device beyond the first also the "device added" notice. */
  "vpn-config": z.object({
    planName: z.string(),
    /** A pass ends; the other plans renew. */
    oneTime: z.boolean(),
    endsAt: timestamp,
    slot: z.number().int().positive(),
    deviceName: z.string(),
    fileName: z.string(),
    downloadUrl: z.url(),
    /** The `.conf` text: private keys, so the outbox row is sealed. */
    clientConfig: z.string(),
    alternatePort: alternatePort.optional(),
  }),
  /** Its server changed what configs say: these devices' configs are out of date. */
  "config-update": z.object({
    planName: z.string(),
    devices: z
      .array(
        z.object({
          deviceName: z.string(),
          fileName: z.string(),
          downloadUrl: z.url(),
          alternatePort: alternatePort.optional(),
        }),
      )
      .min(1),
  }),
  "device-revoked": deviceNotice,
  "device-rekeyed": deviceNotice,
  "device-moved": deviceNotice,
  /** Staff moved it off a server; since decision 130 with its new config (attached, and as a QR code). */
  "device-relocated": deviceNotice.extend({
    config: z
      .object({
        fileName: z.string(),
        downloadUrl: z.url(),
        /** The `.conf` text: private keys, so the outbox row is sealed. */
        clientConfig: z.string(),
        alternatePort: alternatePort.optional(),
      })
      .optional(),
  }),
  "renewal-reminder": planPeriod,
  "pass-ending": planPeriod,
  "payment-failed": planPeriod,
  "subscription-cancelled": planPeriod.extend({ endedAlready: z.boolean() }),
  "subscription-expired": planPeriod,
  /** A cancellation at period end undone: the plan renews on `date` again. */
  "subscription-resumed": planPeriod,
  /** The payment went back: a refund, or a dispute the bank opened. */
  "subscription-refunded": z.object({
    kind: z.enum(["refund", "dispute"]),
    planName: z.string(),
    orderNumber: z.string(),
    /** Formatted with its currency, e.g. "$7.99". */
    amount: z.string(),
    /** When the refund or dispute was recorded. */
    at: timestamp,
    /** When the plan's configs stopped working. */
    endedAt: timestamp,
  }),
  /** The plan changed (billing's plan-change.ts); `amount` is the price difference, unsigned. */
  "plan-changed": z.object({
    kind: z.enum(["upgrade", "downgrade", "switch", "pass-extend", "pass-to-subscription"]),
    fromPlanName: z.string(),
    toPlanName: z.string(),
    amount: z.string().nullable(),
    direction: z.enum(["charged", "credited"]),
    chargedNow: z.boolean(),
    byStaff: z.boolean(),
    deviceLimit: z.number().int().positive(),
    oneTime: z.boolean(),
    periodEndsAt: timestamp,
    revokedDevices: z.array(z.string()),
  }),
  /** The `/account?token=` page: its button spends the token, so a mail scanner's GET does not. */
  "account.sign-in": link.extend({ minutes: z.number().int().positive() }),
  "auth.verify-email": link,
  "auth.password-reset": link,
  "auth.existing-account": z.object({}),
  /** A visitor's message from the contact form, for the support inbox. */
  contact: z.object({ name: z.string(), email: z.string(), subject: z.string(), message: z.string() }),
  /** Staff's answer to a contact message, with the message it answers quoted. */
  "support-reply": z.object({
    name: z.string(),
    subject: z.string(),
    body: z.string(),
    original: z.object({ message: z.string(), sentAt: timestamp }),
  }),
  "dispute-notice": z.object({
    disputeId: z.string(),
    reason: z.string().nullable(),
    /** Formatted with its currency, e.g. "7.99 USD". */
    amount: z.string(),
    /** The subscription it paid for, when that payment is already recorded. */
    subscription: z.object({ id: z.string(), planId: z.string() }).nullable(),
    customerEmail: z.string().nullable(),
    stripeCustomerId: z.string().nullable(),
    paymentIntentId: z.string().nullable(),
    respondBy: timestamp.nullable(),
  }),
  "staff-alert": z.discriminatedUnion("alert", [
    z.object({
      alert: z.literal("node-silent"),
      node: z.object({ name: z.string(), lastSeenAt: timestamp, desiredPeers: z.number().int() }),
      now: timestamp,
    }),
    z.object({
      alert: z.literal("outbox-stuck"),
      outbox: z.object({ pending: z.number().int(), oldestPendingAt: timestamp }),
      now: timestamp,
    }),
    z.object({
      alert: z.literal("configuration-pending"),
      /** How many wait; `listed` names the first of them. */
      waiting: z.number().int().positive(),
      listed: z
        .array(
          z.object({
            subscriptionId: z.string().nullable(),
            checkoutSessionId: z.string(),
            planId: z.string(),
            paidAt: timestamp,
          }),
        )
        .max(LISTED_WAITING_BUYERS),
    }),
    z.object({
      alert: z.literal("ledger-differences"),
      /** The differences this reconciliation found for the first time (the first 50 of them). */
      differences: z.array(z.object({ detail: z.string(), fix: z.string() })).max(50),
      total: z.number().int().positive(),
      now: timestamp,
    }),
    z.object({
      alert: z.literal("exit-abroad"),
      /** A VPN server whose exit addresses the shipped country database places outside Nigeria. */
      server: z.string(),
      exits: z
        .array(z.object({ address: z.string(), country: z.string().nullable() }))
        .min(1)
        .max(20),
      /** When that database was built. */
      databaseBuiltAt: timestamp,
    }),
    z.object({
      alert: z.literal("streaming-refused"),
      /** A required streaming service whose last check through this VPN server failed (decision 133). */
      server: z.string(),
      service: z.string(),
      reason: z.string(),
      checkedAt: timestamp,
    }),
    z.object({
      alert: z.literal("sales-stopped"),
      /** Each VPN server and what it is doing (server-state.ts), so the e-mail says why. */
      servers: z.array(z.object({ name: z.string(), explanation: z.string() })).max(100),
    }),
  ]),
};

export type EmailTemplate = keyof typeof EMAIL_DATA;
export type EmailData<T extends EmailTemplate> = z.output<(typeof EMAIL_DATA)[T]>;

/** A template and its data. */
export type EmailContent = { [T in EmailTemplate]: { template: T; data: EmailData<T> } }[EmailTemplate];

/** `<local@domain>`, as a Message-ID header holds it (RFC 5322). */
const messageId = z.string().regex(/^<[^<>\s@]+@[^<>\s@]+>$/);

/** Threading headers (RFC 5322): this message's id, the one it answers, and the thread before it. */
export const emailThreadSchema = z.object({
  messageId,
  inReplyTo: messageId.optional(),
  references: z.array(messageId).optional(),
});

/** Who sends it, when not the site's sender (MAIL_FROM), and the thread it belongs to. */
export const emailEnvelopeSchema = z.object({
  from: z.string().min(3).optional(),
  thread: emailThreadSchema.optional(),
});

export type EmailEnvelope = z.infer<typeof emailEnvelopeSchema>;

/** An e-mail to queue: its template, the template's data, who gets it, and (rarely) its envelope. */
export type EmailRequest = EmailContent & { to: string; replyTo?: string } & EmailEnvelope;

/** One schema for every template's data, for the code that handles them all alike. */
export function emailDataSchema(template: EmailTemplate): z.ZodType<unknown, unknown> {
  return EMAIL_DATA[template] as z.ZodType<unknown, unknown>;
}

export function isEmailTemplate(name: string): name is EmailTemplate {
  return Object.hasOwn(EMAIL_DATA, name);
}
