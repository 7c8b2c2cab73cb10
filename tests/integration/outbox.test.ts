import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "#server/config.ts";
import type { DatabaseHandle } from "#server/db/client.ts";
import { outboxMessages } from "#server/db/schema/index.ts";
import {
  claimDueEmails,
  enqueueEmail,
  nextRetryDelayMs,
  OUTBOX_LEASE_MS,
  renewEmailClaims,
  type QueuedEmail,
} from "#server/domain/mail/outbox.ts";
import { createMailTransport, type MailTransport } from "#server/domain/mail/transport.ts";
import { deliverDueEmails } from "#server/domain/mail/worker.ts";
import { createLogger } from "#server/logger.ts";
import { createSealer } from "#server/secrets.ts";
import { createTestDatabase, databaseKinds } from "../support/database.ts";

const sealer = createSealer(Buffer.alloc(32, 3).toString("base64"));
const logger = createLogger({ level: "silent" });

function flakyTransport(failFirst: number): MailTransport & { sent: QueuedEmail[] } {
  let failures = 0;
  const sent: QueuedEmail[] = [];
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

describe.each(databaseKinds)("the e-mail outbox on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it("writes a queued message as an .eml file when no SMTP server is configured", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-mail-"));
    const transport = createMailTransport(loadConfig({ DATA_DIR: dataDir }));
    await enqueueEmail(db, sealer, {
      kind: "contact",
      to: "support@naijalink.example",
      replyTo: "ada@example.com",
      subject: "Hello there",
      text: "Can I watch Showmax?",
      attachments: [{ filename: "NaijaLink1.conf", content: "[Interface]\n", contentType: "text/plain" }],
    });
    const sent = await deliverDueEmails({
      db: db,
      sealer,
      transport,
      logger,
      from: "NaijaLink <support@naijalink.example>",
    });
    expect(sent).toBe(1);
    const files = await fs.readdir(path.join(dataDir, "outbox"));
    expect(files).toHaveLength(1);
    const eml = await fs.readFile(path.join(dataDir, "outbox", files[0]!), "utf8");
    expect(eml).toContain("Subject: Hello there");
    expect(eml).toContain("Reply-To: ada@example.com");
    expect(eml).toContain("Can I watch Showmax?");
    expect(eml).toContain("filename=NaijaLink1.conf");
    await fs.rm(dataDir, { recursive: true });
  });

  it("sends the HTML and the text part together, with a QR code drawn as a PNG inline where the HTML names it", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-mail-"));
    const transport = createMailTransport(loadConfig({ DATA_DIR: dataDir }));
    await enqueueEmail(db, sealer, {
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
    });
    await deliverDueEmails({ db, sealer, transport, logger, from: "NaijaLink <support@naijalink.example>" });
    const [file] = await fs.readdir(path.join(dataDir, "outbox"));
    const eml = await fs.readFile(path.join(dataDir, "outbox", file!), "utf8");
    expect(eml).toContain("Content-Type: multipart/alternative");
    expect(eml).toContain("Scan the code in the HTML part.");
    expect(eml).toContain('<img src="cid:config-qr"');
    expect(eml).toContain("Content-Type: multipart/related");
    expect(eml).toContain("Content-ID: <config-qr>");
    expect(eml).toContain("Content-Disposition: inline; filename=config-qr.png");
    const inlinePart = eml.slice(eml.indexOf("Content-ID: <config-qr>"));
    const base64 = /\n\n([A-Za-z0-9+/=\n]+)\n/.exec(inlinePart)![1]!;
    expect(Buffer.from(base64, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(eml).toContain("filename=NaijaLink1.conf");
    await fs.rm(dataDir, { recursive: true });
  });

  it("makes a queued message due at once by the app's clock, which the worker claims with", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const transport = flakyTransport(0);
    for (let index = 0; index < 10; index++) {
      await enqueueEmail(db, sealer, {
        kind: "contact",
        to: "support@naijalink.example",
        subject: "Hi",
        text: ".",
      });
      // Claimed with a clock read right after queueing, even within the same millisecond.
      expect(await deliverDueEmails({ db, sealer, transport, logger, from: "x@naijalink.example" })).toBe(1);
    }
    expect(transport.sent).toHaveLength(10);
  });

  it("keeps the message body sealed in the table", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    await enqueueEmail(db, sealer, {
      kind: "config",
      to: "buyer@example.com",
      subject: "Your config",
      text: "PrivateKey = SECRET",
    });
    const [row] = await db.select().from(outboxMessages);
    expect(row!.sealedMessage).not.toContain("SECRET");
    expect(row!.toAddress).toBe("buyer@example.com");
  });

  it("retries with backoff while sending fails and sends each message once it works", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    for (let index = 0; index < 3; index += 1) {
      await enqueueEmail(db, sealer, {
        kind: "contact",
        to: "support@naijalink.example",
        subject: `Message ${index}`,
        text: "hi",
      });
    }
    const transport = flakyTransport(3);
    const deps = { db: db, sealer, transport, logger, from: "x@example.com" };
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
      "Message 0",
      "Message 1",
      "Message 2",
    ]);
    const rows = await db.select().from(outboxMessages);
    expect(rows.every((row) => row.status === "sent" && row.sentAt)).toBe(true);
  });

  it("holds a claim for OUTBOX_LEASE_MS past its last renewal, then lets another worker take the message over", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    await enqueueEmail(db, sealer, {
      kind: "contact",
      to: "support@naijalink.example",
      subject: "Hi",
      text: ".",
    });
    const start = Date.now() + 1_000;
    const at = (ms: number) => new Date(start + ms);
    const [claimed] = await claimDueEmails(db, sealer, at(0), 10);
    expect(claimed).toBeDefined();
    expect(await claimDueEmails(db, sealer, at(OUTBOX_LEASE_MS - 1), 10)).toEqual([]);
    // The sender's heartbeat: a full lease again from the renewal.
    await renewEmailClaims(db, [claimed!.id], at(OUTBOX_LEASE_MS - 1));
    expect(await claimDueEmails(db, sealer, at(2 * OUTBOX_LEASE_MS - 2), 10)).toEqual([]);
    const [takenOver] = await claimDueEmails(db, sealer, at(2 * OUTBOX_LEASE_MS - 1), 10);
    expect(takenOver?.id).toBe(claimed!.id);
    expect(OUTBOX_LEASE_MS).toBeLessThanOrEqual(10_000); // + the worker's 5 s poll: taken over within 15 s
  });

  it("backs off exponentially up to an hour", () => {
    expect(nextRetryDelayMs(1)).toBe(15_000);
    expect(nextRetryDelayMs(2)).toBe(30_000);
    expect(nextRetryDelayMs(30)).toBe(3_600_000);
  });
});
