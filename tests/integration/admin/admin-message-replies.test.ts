// Replies to contact messages written in /admin/messages (issue 24, decision 107): sent through the
// outbox from the support address, threaded with the customer's message (Message-ID, In-Reply-To,
// References), kept on the message with who sent it and when, audited; admins only.
import fs from "node:fs/promises";
import path from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  contactMessageReplies,
  contactMessages,
  outboxMessages,
  staffAuditLog,
} from "#server/db/schema/index.ts";
import { queryRows } from "#server/db/client.ts";
import type { MessagePage } from "#server/domain/contact/messages.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

const CUSTOMER = "ada@example.com";

/** The headers of an .eml (folded lines unfolded) and its decoded text. */
function parseEml(raw: string) {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = rest
    .join("\n\n")
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return { headers, body };
}

describe.each(databaseKinds)("replies to contact messages from the console, on %s", (kind) => {
  let app: TestApp;
  const cookies = { admin: "", editor: "", customer: "" };
  let messageId: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookies.admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    cookies.editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    await buy(app, "unlock", CUSTOMER);
    cookies.customer = await signedInCustomer(app, CUSTOMER);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await app.services.db.delete(contactMessages);
    // Stored directly: the form's rate limit allows a sender only a few messages an hour.
    const [row] = await app.services.db
      .insert(contactMessages)
      .values({
        name: "Ada Obi",
        email: CUSTOMER,
        subject: "Showmax on my TV",
        message: "Hello,\ncan I use my config on a smart TV?",
      })
      .returning({ id: contactMessages.id });
    messageId = row!.id;
  });

  /** What the page's forms send: a post to /admin/messages, as a browser without JavaScript does. */
  function post(fields: Record<string, string>, cookie = cookies.admin) {
    return app.request("/admin/messages", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** The .eml files the mail worker wrote, by kind, oldest first. */
  async function sentEmails(kindOfEmail: string) {
    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    const names = (await fs.readdir(outbox)).filter((name) => name.includes(`-${kindOfEmail}-`)).sort();
    return Promise.all(
      names.map(async (name) => parseEml(await fs.readFile(path.join(outbox, name), "utf8"))),
    );
  }

  const replies = () =>
    app.services.db
      .select()
      .from(contactMessageReplies)
      .where(eq(contactMessageReplies.messageId, messageId))
      .orderBy(asc(contactMessageReplies.sentAt));

  const auditEntries = () =>
    app.services.db
      .select()
      .from(staffAuditLog)
      .where(eq(staffAuditLog.targetId, messageId))
      .orderBy(asc(staffAuditLog.id));

  it("sends the reply from the support address, threaded with the customer's message, and keeps it on the message", async () => {
    await app.services.db.delete(contactMessages);
    const form = await app.request("/api/send-contact-email", {
      json: {
        name: "Ada Obi",
        email: CUSTOMER,
        subject: "Showmax on my TV",
        message: "Hello,\ncan I use my config on a smart TV?",
      },
    });
    expect(form.status).toBe(200);
    messageId = (await app.services.db.select({ id: contactMessages.id }).from(contactMessages))[0]!.id;
    const domain = "naijalink.example";
    const first = await post({
      intent: "reply",
      id: messageId,
      body: "Hello Ada,\nYes: install WireGuard on the TV.",
    });
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("Reply sent");
    const second = await post({ intent: "reply", id: messageId, body: "Did it work?" });
    expect(second.status).toBe(200);

    const [firstReply, secondReply] = await replies();
    expect(firstReply).toMatchObject({
      staffEmail: STAFF_EMAIL,
      body: "Hello Ada,\nYes: install WireGuard on the TV.",
    });
    expect(secondReply).toMatchObject({ staffEmail: STAFF_EMAIL, body: "Did it work?" });

    const [contact] = (await sentEmails("contact")).slice(-1);
    const original = `<contact-${messageId}@${domain}>`;
    expect(contact!.headers.get("message-id")).toBe(original);
    const sent = await sentEmails("support-reply");
    expect(sent).toHaveLength(2);
    // The worker may send both in one pass: find each by its own Message-ID, not by file order.
    const byMessageId = (reply: { id: string } | undefined) =>
      sent.find((email) => email.headers.get("message-id") === `<reply-${reply!.id}@${domain}>`);
    const [one, two] = [byMessageId(firstReply), byMessageId(secondReply)];
    expect(one!.headers.get("from")).toBe(`NaijaLink Support <${app.config.SUPPORT_EMAIL}>`);
    expect(one!.headers.get("to")).toBe(CUSTOMER);
    expect(one!.headers.get("subject")).toBe("Re: Showmax on my TV");
    expect(one!.headers.get("message-id")).toBe(`<reply-${firstReply!.id}@${domain}>`);
    expect(one!.headers.get("in-reply-to")).toBe(original);
    expect(one!.headers.get("references")).toBe(original);
    expect(one!.body).toContain("Yes: install WireGuard on the TV.");
    expect(one!.body).toContain("> can I use my config on a smart TV?");
    expect(two!.headers.get("message-id")).toBe(`<reply-${secondReply!.id}@${domain}>`);
    expect(two!.headers.get("in-reply-to")).toBe(`<reply-${firstReply!.id}@${domain}>`);
    expect(two!.headers.get("references")).toBe(`${original} <reply-${firstReply!.id}@${domain}>`);

    const [message] = await app.services.db
      .select()
      .from(contactMessages)
      .where(eq(contactMessages.id, messageId));
    expect(message).toMatchObject({ status: "answered", statusChangedBy: STAFF_EMAIL });
    expect(
      (await auditEntries()).map(({ action, staffEmail, reason, details }) => ({
        action,
        staffEmail,
        reason,
        details,
      })),
    ).toEqual([
      {
        action: "message.reply",
        staffEmail: STAFF_EMAIL,
        reason: null,
        details: { replyId: firstReply!.id, from: "new", to: "answered" },
      },
      {
        action: "message.reply",
        staffEmail: STAFF_EMAIL,
        reason: null,
        details: { replyId: secondReply!.id },
      },
    ]);

    const listed = await app.request("/api/admin/messages", { json: {}, headers: { cookie: cookies.admin } });
    const [shown] = ((await listed.json()) as MessagePage).messages;
    expect(shown!.replies).toEqual([
      expect.objectContaining({ id: firstReply!.id, staffEmail: STAFF_EMAIL, delivery: "sent" }),
      expect.objectContaining({
        id: secondReply!.id,
        body: "Did it work?",
        sentAt: secondReply!.sentAt.toISOString(),
      }),
    ]);
    const page = await (await app.request("/admin/messages", { headers: { cookie: cookies.admin } })).text();
    expect(page).toContain(`Reply by ${STAFF_EMAIL}`);
    expect(page).toContain("Did it work?");
  });

  it("marks a message answered or closed without a typed reason, and audits it", async () => {
    const answered = await post({ intent: "status", id: messageId, status: "answered" });
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain("Message marked answered");
    expect(await post({ intent: "status", id: messageId, status: "closed" })).toHaveProperty("status", 200);
    expect((await auditEntries()).map(({ action, reason }) => ({ action, reason }))).toEqual([
      { action: "message.answer", reason: null },
      { action: "message.close", reason: null },
    ]);
  });

  async function nothingChanged(run: () => Promise<void>) {
    const count = async () => {
      const [row] = await queryRows<{ replies: number; outbox: number; audit: number }>(
        app.services.db,
        sql`select (select count(*)::int from ${contactMessageReplies}) as replies,
                   (select count(*)::int from ${outboxMessages}) as outbox,
                   (select count(*)::int from ${staffAuditLog}) as audit`,
      );
      const [message] = await app.services.db
        .select()
        .from(contactMessages)
        .where(eq(contactMessages.id, messageId));
      return { ...row, status: message!.status };
    };
    const before = await count();
    await run();
    expect(await count()).toEqual(before);
  }

  it("refuses a reply from anyone but an admin: signed out, a customer, an editor", async () => {
    await nothingChanged(async () => {
      const fields = { intent: "reply", id: messageId, body: "Not staff" };
      const anonymous = await post(fields, "");
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get("location")).toBe("/admin/login");
      const customer = await post(fields, cookies.customer);
      expect(customer.status).toBe(302);
      expect(customer.headers.get("location")).toBe("/");
      const editor = await post(fields, cookies.editor);
      expect(editor.status).toBe(403);
      expect(await editor.text()).toContain("Not available to your role");
      const status = await post({ intent: "status", id: messageId, status: "closed" }, cookies.editor);
      expect(status.status).toBe(403);
    });
  });

  it.each([
    ["an empty reply", { intent: "reply", body: "   " }, 400, "Write the reply first."],
    ["a reply over 10,000 characters", { intent: "reply", body: "x".repeat(10_001) }, 400, "under 10000"],
    ["an id that is no uuid", { intent: "reply", id: "42", body: "Hi" }, 400, "id"],
    [
      "an unknown message",
      { intent: "reply", id: "00000000-0000-4000-8000-000000000000", body: "Hi" },
      404,
      "no such message",
    ],
    ["an unknown intent", { intent: "delete" }, 400, "intent"],
    ["an unknown status", { intent: "status", status: "spam" }, 400, "status"],
  ])("refuses %s with its message, changing nothing", async (_case, fields, status, text) => {
    await nothingChanged(async () => {
      const response = await post({ id: messageId, ...fields } as Record<string, string>);
      expect(response.status).toBe(status);
      expect(await response.text()).toContain(text);
    });
  });
});
