import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "#server/config.ts";
import type { DatabaseHandle } from "#server/db/client.ts";
import { eq } from "drizzle-orm";
import { outboxMessages } from "#server/db/schema/index.ts";
import {
  claimDueEmails,
  enqueueEmail,
  nextRetryDelayMs,
  OUTBOX_LEASE_MS,
  renewEmailClaims,
} from "#server/domain/mail/outbox.ts";
import {
  createMailTransport,
  type MailTransport,
  type OutgoingEmail,
} from "#server/domain/mail/transport.ts";
import { deliverDueEmails } from "#server/domain/mail/worker.ts";
import { createLogger } from "#server/logger.ts";
import { createSealer } from "#server/secrets.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";
import { contactEmail } from "../../support/outbox.ts";

const sealer = createSealer(Buffer.alloc(32, 3).toString("base64"));
const logger = createLogger({ level: "silent" });
const site = {
  BRAND_NAME: "NaijaLink",
  PUBLIC_URL: "https://naijalink.example",
  SUPPORT_EMAIL: "support@naijalink.example",
};
const from = "NaijaLink <support@naijalink.example>";
const CLIENT_CONFIG = "[Interface]\nPrivateKey = SECRET-PRIVATE-KEY\n";

/** A config e-mail's data, as the VPN area queues it. */
function configEmail(to = "ada@example.com") {
  return {
    template: "vpn-config" as const,
    to,
    replyTo: "support@naijalink.example",
    data: {
      planName: "Pro Monthly",
      oneTime: false,
      endsAt: new Date("2026-12-23T10:00:00Z"),
      slot: 1,
      deviceName: "Device 1",
      fileName: "NaijaLink1.conf",
      downloadUrl: "https://naijalink.example/api/configs/tok_0123456789abcdef",
      clientConfig: CLIENT_CONFIG,
    },
  };
}

function flakyTransport(failFirst: number): MailTransport & { sent: OutgoingEmail[] } {
  let failures = 0;
  const sent: OutgoingEmail[] = [];
  return {
    description: "test",
    sent,
    async send(email) {
      if (failures < failFirst) {
        failures += 1;
        throw new Error("connect ECONNREFUSED 127.0.0.1:2525");
      }
      sent.push(email);
    },
    close() {},
  };
}

/** The text of an .eml's quoted-printable parts, decoded (the other parts pass through). */
function quotedPrintable(eml: string): string {
  const bytes = eml
    .replace(/=\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

describe.each(databaseKinds)("the e-mail outbox on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  async function emlFiles(dataDir: string): Promise<string[]> {
    const directory = path.join(dataDir, "outbox");
    const files = (await fs.readdir(directory)).sort();
    return Promise.all(files.map((file) => fs.readFile(path.join(directory, file), "utf8")));
  }

  it("writes a queued message as an .eml file, rendered from its template, when no SMTP server is configured", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-mail-"));
    const transport = createMailTransport(loadConfig({ DATA_DIR: dataDir }));
    await enqueueEmail(db, sealer, contactEmail("Hello there"));
    expect(await deliverDueEmails({ db, sealer, transport, logger, from, site })).toBe(1);
    const [eml, ...others] = await emlFiles(dataDir);
    expect(others).toHaveLength(0);
    expect(eml).toContain("Subject: [Contact] Hello there");
    expect(eml).toContain("Reply-To: ada@example.com");
    expect(eml).toContain("New message from the contact form");
    await fs.rm(dataDir, { recursive: true });
  });

  it("sends a config e-mail's HTML and text parts, its QR code as an inline PNG and the .conf attached", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-mail-"));
    const transport = createMailTransport(loadConfig({ DATA_DIR: dataDir }));
    await enqueueEmail(db, sealer, configEmail());
    await deliverDueEmails({ db, sealer, transport, logger, from, site });
    const [eml] = await emlFiles(dataDir);
    expect(eml).toContain("Subject: Your NaijaLink VPN config (NaijaLink1.conf)");
    expect(eml).toContain("Content-Type: multipart/alternative");
    const decoded = quotedPrintable(eml!);
    expect(decoded).toContain(
      "Download your config: https://naijalink.example/api/configs/tok_0123456789abcdef",
    );
    expect(decoded).toMatch(/<img alt="QR code of NaijaLink1.conf"[^>]* src="cid:config-qr"/);
    expect(eml).toContain("Content-Type: multipart/related");
    expect(eml).toContain("Content-ID: <config-qr>");
    expect(eml).toContain("Content-Disposition: inline; filename=config-qr.png");
    const inlinePart = eml!.slice(eml!.indexOf("Content-ID: <config-qr>"));
    const base64 = /\n\n([A-Za-z0-9+/=\n]+)\n/.exec(inlinePart)![1]!;
    expect(Buffer.from(base64, "base64").subarray(1, 4).toString()).toBe("PNG");
    const confPart = eml!.slice(eml!.indexOf("Content-Disposition: attachment; filename=NaijaLink1.conf"));
    const conf = /\n\n([A-Za-z0-9+/=\n]+)\n/.exec(confPart)![1]!;
    expect(Buffer.from(conf, "base64").toString()).toBe(CLIENT_CONFIG);
    await fs.rm(dataDir, { recursive: true });
  });

  it("stores a template's name and its data, sealed, and renders nothing until the message is sent", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    await enqueueEmail(db, sealer, configEmail("buyer@example.com"));
    const [row] = await db.select().from(outboxMessages);
    expect(row!.kind).toBe("vpn-config");
    expect(row!.toAddress).toBe("buyer@example.com");
    expect(row!.sealedMessage).not.toContain("SECRET");
    const stored = JSON.parse(sealer.unseal(row!.sealedMessage)) as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(["data", "replyTo", "template", "to"]);
    expect(stored.template).toBe("vpn-config");
    expect(stored.data).toMatchObject({ endsAt: "2026-12-23T10:00:00.000Z", clientConfig: CLIENT_CONFIG });
    expect(JSON.stringify(stored)).not.toMatch(/<html|Subject|Download your config/i);
  });

  it("refuses data its template does not accept, and queues nothing", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const { data, ...rest } = configEmail();
    const bad = { ...rest, data: { ...data, slot: 0 } };
    await expect(enqueueEmail(db, sealer, bad)).rejects.toThrow();
    await expect(
      enqueueEmail(db, sealer, { ...contactEmail(), template: "no-such-template" } as unknown as typeof bad),
    ).rejects.toThrow();
    expect(await db.select().from(outboxMessages)).toHaveLength(0);
  });

  it("sends a message queued before templates as it was rendered then, its QR code drawn when sent", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const rendered = {
      kind: "vpn-config",
      to: "ada@example.com",
      subject: "Your config",
      text: "Scan the code in the HTML part.",
      html: '<p>Scan this code:</p><img src="cid:config-qr" alt="QR code">',
      attachments: [
        { filename: "NaijaLink1.conf", content: "[Interface]\n", contentType: "text/plain" },
        {
          filename: "config-qr.png",
          content: "[Interface]\n",
          contentType: "image/png",
          asQrCode: true,
          contentId: "config-qr",
        },
      ],
    };
    await db.insert(outboxMessages).values({
      kind: "vpn-config",
      toAddress: "ada@example.com",
      sealedMessage: sealer.seal(JSON.stringify(rendered)),
      nextAttemptAt: new Date(Date.now() - 1_000),
    });
    const transport = flakyTransport(0);
    expect(await deliverDueEmails({ db, sealer, transport, logger, from, site })).toBe(1);
    const [sent] = transport.sent;
    expect(sent).toMatchObject({ subject: "Your config", html: rendered.html, text: rendered.text });
    const [conf, qr] = sent!.attachments!;
    expect(conf!.content).toBe("[Interface]\n");
    expect(qr).toMatchObject({ filename: "config-qr.png", contentId: "config-qr", contentType: "image/png" });
    expect((qr!.content as Buffer).subarray(1, 4).toString()).toBe("PNG");
  });

  it("keeps a message it cannot render for a retry, with the error, and still sends the others", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    await db.insert(outboxMessages).values({
      kind: "receipt",
      toAddress: "ada@example.com",
      sealedMessage: sealer.seal(JSON.stringify({ template: "receipt", to: "ada@example.com", data: {} })),
      nextAttemptAt: new Date(Date.now() - 1_000),
    });
    await enqueueEmail(db, sealer, contactEmail());
    const transport = flakyTransport(0);
    expect(
      await deliverDueEmails({ db, sealer, transport, logger, from, site }, new Date(Date.now() + 1_000)),
    ).toBe(1);
    expect(transport.sent.map((email) => email.kind)).toEqual(["contact"]);
    const [broken] = await db.select().from(outboxMessages).where(eq(outboxMessages.kind, "receipt"));
    expect(broken).toMatchObject({ status: "pending", attempts: 1 });
    expect(broken!.lastError).toBeTruthy();
  });

  it("makes a queued message due at once by the app's clock, which the worker claims with", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const transport = flakyTransport(0);
    for (let index = 0; index < 10; index++) {
      await enqueueEmail(db, sealer, contactEmail());
      // Claimed with a clock read right after queueing, even within the same millisecond.
      expect(await deliverDueEmails({ db, sealer, transport, logger, from, site })).toBe(1);
    }
    expect(transport.sent).toHaveLength(10);
  });

  it("retries with backoff while sending fails and sends each message once it works", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    for (let index = 0; index < 3; index += 1)
      await enqueueEmail(db, sealer, contactEmail(`Message ${index}`));
    const transport = flakyTransport(3);
    const deps = { db: db, sealer, transport, logger, from, site };
    // A second ahead: the database stores microseconds, so "now" in the same millisecond as the
    // last insert could still be before it.
    const start = Date.now() + 1_000;
    expect(await deliverDueEmails(deps, new Date(start))).toBe(0);
    const pending = await db.select().from(outboxMessages);
    expect(pending.every((row) => row.status === "pending" && row.attempts === 1 && row.lastError)).toBe(
      true,
    );
    // Not due again until the backoff has passed.
    expect(await deliverDueEmails(deps, new Date(start + 1_000))).toBe(0);
    const later = new Date(Date.now() + nextRetryDelayMs(1) + 1_000);
    expect(await deliverDueEmails(deps, later)).toBe(3);
    expect(await deliverDueEmails(deps, new Date(later.getTime() + 3_600_000))).toBe(0);
    expect(transport.sent.map((email) => email.subject).sort()).toEqual([
      "[Contact] Message 0",
      "[Contact] Message 1",
      "[Contact] Message 2",
    ]);
    const rows = await db.select().from(outboxMessages);
    expect(rows.every((row) => row.status === "sent" && row.sentAt)).toBe(true);
  });

  it("holds a claim for OUTBOX_LEASE_MS past its last renewal, then lets another worker take the message over", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    await enqueueEmail(db, sealer, contactEmail());
    const start = Date.now() + 1_000;
    const at = (ms: number) => new Date(start + ms);
    const [claimed] = await claimDueEmails(db, at(0), 10);
    expect(claimed).toBeDefined();
    expect(await claimDueEmails(db, at(OUTBOX_LEASE_MS - 1), 10)).toEqual([]);
    // The sender's heartbeat: a full lease again from the renewal.
    await renewEmailClaims(db, [claimed!.id], at(OUTBOX_LEASE_MS - 1));
    expect(await claimDueEmails(db, at(2 * OUTBOX_LEASE_MS - 2), 10)).toEqual([]);
    const [takenOver] = await claimDueEmails(db, at(2 * OUTBOX_LEASE_MS - 1), 10);
    expect(takenOver?.id).toBe(claimed!.id);
    expect(OUTBOX_LEASE_MS).toBeLessThanOrEqual(10_000); // + the worker's 5 s poll: taken over within 15 s
  });

  it("backs off exponentially up to an hour", () => {
    expect(nextRetryDelayMs(1)).toBe(15_000);
    expect(nextRetryDelayMs(2)).toBe(30_000);
    expect(nextRetryDelayMs(30)).toBe(3_600_000);
  });
});
