// POST /api/send-contact-email against the app: validation, storage, the outbox, rate limits, real SMTP.
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { contactMessages, outboxMessages } from "#server/db/schema/index.ts";
import { deliverDueEmails } from "#server/domain/mail/worker.ts";
import { createTestApp, loadServer, type TestApp } from "../../support/app.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";

// The first PGlite of a worker runs initdb and the app loads once: pay that here, not in a test's timeout.
beforeAll(async () => {
  await loadServer();
  await (await createTestDatabase("pglite")).close();
}, 180_000);

const valid = {
  name: "Ada Obi",
  email: "ada@example.com",
  subject: "Showmax on my TV",
  message: "Hello, can I use my config on a smart TV?",
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts. */
async function startSmtp(port: number) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
        const headers: Record<string, string> = {};
        for (const line of head.split(/\r?\n/)) {
          const colon = line.indexOf(":");
          if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          headers,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function workerDeps(app: TestApp) {
  const { db, sealer, logger, mail, config } = app.services;
  return { db, sealer, logger, transport: mail.transport, from: mail.from, site: config };
}

describe.each(databaseKinds)("the contact form endpoint on %s", (kind) => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("stores the message and e-mails it to support with Reply-To the sender", async () => {
    app = await createTestApp({ kind });
    const response = await app.request("/api/send-contact-email", { json: valid });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true });

    const stored = await app.services.db.select().from(contactMessages);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject(valid);
    const queued = await app.services.db.select().from(outboxMessages);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      kind: "contact",
      toAddress: "support@naijalink.example",
      status: "pending",
    });

    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    const files = await fs.readdir(outbox);
    expect(files).toHaveLength(1);
    const eml = await fs.readFile(path.join(outbox, files[0]!), "utf8");
    expect(eml).toContain("To: support@naijalink.example");
    expect(eml).toContain("Reply-To: ada@example.com");
    expect(eml).toContain("Subject: [Contact] Showmax on my TV");
    expect(eml).toContain("Hello, can I use my config on a smart TV?");
    expect(eml).toContain("Ada Obi");
  });

  it.each([
    ["a missing field", { ...valid, subject: undefined }, /subject/i],
    ["an empty field", { ...valid, name: "   " }, /Name is required/],
    ["a malformed e-mail address", { ...valid, email: "not-an-email" }, /valid email/i],
    ["an oversized message", { ...valid, message: "x".repeat(5001) }, /at most 5000/],
    ["an oversized name", { ...valid, name: "n".repeat(101) }, /at most 100/],
    ["an oversized subject", { ...valid, subject: "s".repeat(201) }, /at most 200/],
    ["a field of the wrong type", { ...valid, message: 42 }, /message/i],
    ["an unknown field", { ...valid, admin: true }, /admin|unrecognized/i],
    ["an array instead of an object", [valid], /object|expected/i],
  ])("refuses %s with a 400 and a message, storing nothing", async (_case, body, message) => {
    app ??= await createTestApp({ kind });
    const response = await app.request("/api/send-contact-email", { json: body });
    expect(response.status).toBe(400);
    const payload = (await response.json()) as { error: string; message: string };
    expect(payload.error).toBe("Invalid request");
    expect(payload.message).toMatch(message);
    expect(await app.services.db.select().from(contactMessages)).toHaveLength(0);
    expect(await app.services.db.select().from(outboxMessages)).toHaveLength(0);
  });

  it("refuses a body that is not JSON, or too large, with a 4xx JSON message", async () => {
    app = await createTestApp({ kind });
    const broken = await app.request("/api/send-contact-email", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{ name: ",
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { message: string }).message).toMatch(/not valid JSON/);
    const huge = await app.request("/api/send-contact-email", {
      json: { ...valid, message: "x".repeat(40_000) },
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { message: string }).message).toMatch(/at most/);
    const get = await app.request("/api/send-contact-email");
    expect(get.status).toBe(405);
    expect(await app.services.db.select().from(contactMessages)).toHaveLength(0);
  });

  it("keeps line breaks out of the subject and name so no mail header can be injected", async () => {
    app = await createTestApp({ kind });
    const response = await app.request("/api/send-contact-email", {
      json: { ...valid, name: "Ada\r\nBcc: victim@example.com", subject: "Hi\r\nBcc: victim@example.com" },
    });
    expect(response.status).toBe(200);
    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    const [file] = await fs.readdir(outbox);
    const eml = await fs.readFile(path.join(outbox, file!), "utf8");
    expect(eml).not.toMatch(/^Bcc:/im);
    expect(eml).toContain("Subject: [Contact] Hi Bcc: victim@example.com");
  });

  it("answers 429 with Retry-After once one client address sends too often", async () => {
    app = await createTestApp({ kind });
    for (let index = 0; index < 5; index += 1) {
      const response = await app.request("/api/send-contact-email", {
        json: { ...valid, email: `sender${index}@example.com` },
        clientIp: "203.0.113.7",
      });
      expect(response.status).toBe(200);
    }
    const refused = await app.request("/api/send-contact-email", {
      json: { ...valid, email: "sender9@example.com" },
      clientIp: "203.0.113.7",
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: "Too many requests",
      message: expect.stringMatching(/try again/),
    });
    const other = await app.request("/api/send-contact-email", { json: valid, clientIp: "203.0.113.8" });
    expect(other.status).toBe(200);
    expect(await app.services.db.select().from(contactMessages)).toHaveLength(6);
  });

  it("answers 429 once one sender address sends too often, from whatever client address", async () => {
    app = await createTestApp({ kind });
    for (let index = 0; index < 5; index += 1) {
      const response = await app.request("/api/send-contact-email", {
        json: { ...valid, email: "Spammy@Example.com" },
        clientIp: `198.51.100.${index + 1}`,
      });
      expect(response.status).toBe(200);
    }
    const refused = await app.request("/api/send-contact-email", {
      json: { ...valid, email: "spammy@example.com" },
      clientIp: "198.51.100.99",
    });
    expect(refused.status).toBe(429);
    expect(await app.services.db.select().from(outboxMessages)).toHaveLength(5);
  });
});

describe("contact messages through a real SMTP server", () => {
  let app: TestApp | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
  afterEach(async () => {
    await app?.close();
    await smtp?.close();
    app = undefined;
    smtp = undefined;
  });

  it("arrives with the right From, To, Reply-To and Subject", async () => {
    const port = await freePort();
    smtp = await startSmtp(port);
    app = await createTestApp({
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SUPPORT_EMAIL: "help@naijalink.example" },
    });
    const response = await app.request("/api/send-contact-email", { json: valid });
    expect(response.status).toBe(200);
    await app.services.mail.drain();
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail!.to).toEqual(["help@naijalink.example"]);
    expect(mail!.from).toBe("help@naijalink.example");
    expect(mail!.headers.from).toBe("NaijaLink <help@naijalink.example>");
    expect(mail!.headers.to).toBe("help@naijalink.example");
    expect(mail!.headers["reply-to"]).toBe("ada@example.com");
    expect(mail!.headers.subject).toBe("[Contact] Showmax on my TV");
    expect(mail!.raw).toContain("Hello, can I use my config on a smart TV?");
    const [row] = await app.services.db.select().from(outboxMessages);
    expect(row!.status).toBe("sent");
  });

  it("keeps messages in the outbox while SMTP is down and delivers each exactly once when it is back", async () => {
    const port = await freePort();
    app = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    const subjects = ["First", "Second", "Third"];
    for (const [index, subject] of subjects.entries()) {
      const response = await app.request("/api/send-contact-email", {
        json: { ...valid, subject, email: `person${index}@example.com` },
      });
      // The visitor is told it worked: the message is safe in the database.
      expect(response.status).toBe(200);
    }
    await app.services.mail.drain();
    let rows = await app.services.db.select().from(outboxMessages);
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.status === "pending" && row.attempts === 1 && row.lastError)).toBe(true);
    expect(app.log.text).toContain("e-mail not sent yet; will retry");

    // A second try while still down changes nothing but the attempt count.
    const later = Date.now() + 60_000;
    expect(await deliverDueEmails(workerDeps(app), new Date(later))).toBe(0);

    smtp = await startSmtp(port);
    const afterBackoff = new Date(later + 3_600_000);
    expect(await deliverDueEmails(workerDeps(app), afterBackoff)).toBe(3);
    // Nothing is left to send, however far the clock moves.
    expect(await deliverDueEmails(workerDeps(app), new Date(afterBackoff.getTime() + 86_400_000))).toBe(0);

    expect(smtp.received.map((mail) => mail.headers.subject).sort()).toEqual(
      ["[Contact] First", "[Contact] Second", "[Contact] Third"].sort(),
    );
    expect(new Set(smtp.received.map((mail) => mail.headers["message-id"])).size).toBe(3);
    expect(smtp.received.map((mail) => mail.headers["reply-to"]).sort()).toEqual([
      "person0@example.com",
      "person1@example.com",
      "person2@example.com",
    ]);
    rows = await app.services.db.select().from(outboxMessages);
    expect(rows.every((row) => row.status === "sent")).toBe(true);
    expect(await app.services.db.select().from(contactMessages)).toHaveLength(3);
  });
});
