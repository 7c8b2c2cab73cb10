// The staff inbox of contact messages (issue 15, decision 079): stored from the form, listed, moved
// between new / answered / closed with an audit entry, and shown beside the sender's subscriptions.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { contactMessages, staffAuditLog } from "#server/db/schema/index.ts";
import type { MessagePage } from "#server/domain/contact/messages.ts";
import { buy } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const MINUTE = 60_000;

describe.each(databaseKinds)("the staff inbox of contact messages (%s)", (kind) => {
  let app: TestApp;
  let cookie: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    await app.services.db.delete(contactMessages);
  });

  const admin = (path: string, json: unknown) =>
    app.request(`/api/admin/${path}`, { json, headers: { cookie } });

  async function list(query: Record<string, unknown> = {}): Promise<MessagePage> {
    const response = await admin("messages", query);
    expect(response.status).toBe(200);
    return (await response.json()) as MessagePage;
  }

  /** Stored directly, a minute apart: the form's rate limit allows only a few per sender. */
  async function storeMessages(count: number, fields: Partial<typeof contactMessages.$inferInsert> = {}) {
    const start = Date.parse("2026-11-01T00:00:00Z");
    const rows = await app.services.db
      .insert(contactMessages)
      .values(
        Array.from({ length: count }, (_, index) => ({
          name: "Ada Obi",
          email: "ada@example.com",
          subject: `Question ${index + 1}`,
          message: "Hello",
          createdAt: new Date(start + index * MINUTE),
          ...fields,
        })),
      )
      .returning();
    return rows;
  }

  async function auditEntries(targetId: string) {
    return app.services.db.select().from(staffAuditLog).where(eq(staffAuditLog.targetId, targetId));
  }

  it("stores a message sent through the contact form as new, e-mails support once, and lists it", async () => {
    const before = (await queuedEmails(app, app.config.SUPPORT_EMAIL)).length;
    const form = {
      name: "Ada Obi",
      email: "ada@example.com",
      subject: "Showmax on my TV",
      message: "Hello, can I use my config on a smart TV?",
    };
    const sent = await app.request("/api/send-contact-email", { json: form });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual({ success: true });

    const emails = await queuedEmails(app, app.config.SUPPORT_EMAIL);
    expect(emails.slice(before).filter((email) => email.kind === "contact")).toHaveLength(1);
    const { messages, total } = await list();
    expect(total).toBe(1);
    expect(messages[0]).toMatchObject({
      ...form,
      status: "new",
      statusChangedAt: null,
      statusChangedBy: null,
    });
  });

  it("lists messages newest first, 20 a page, filtered by status", async () => {
    await storeMessages(23);
    const [closed] = await storeMessages(1, {
      subject: "Closed one",
      status: "closed",
      statusChangedAt: new Date("2026-11-02T00:00:00Z"),
      createdAt: new Date("2026-10-01T00:00:00Z"),
    });

    const first = await list();
    expect(first).toMatchObject({ page: 1, pageCount: 2, total: 24 });
    expect(first.messages.map((message) => message.subject).slice(0, 3)).toEqual([
      "Question 23",
      "Question 22",
      "Question 21",
    ]);
    expect(first.messages).toHaveLength(20);
    const second = await list({ page: 2 });
    expect(second.messages.map((message) => message.subject)).toEqual([
      "Question 3",
      "Question 2",
      "Question 1",
      "Closed one",
    ]);
    expect((await list({ page: 3 })).messages).toEqual([]);

    const onlyClosed = await list({ status: "closed" });
    expect(onlyClosed).toMatchObject({ total: 1, pageCount: 1 });
    expect(onlyClosed.messages.map((message) => message.id)).toEqual([closed!.id]);
    expect((await list({ status: "new" })).total).toBe(23);
  });

  it("marks a message answered, closes and reopens it, each with an audit entry carrying the reason", async () => {
    const [stored] = await storeMessages(1);
    const steps = [
      { status: "answered", action: "message.answer", reason: "Replied with the smart TV guide" },
      { status: "closed", action: "message.close", reason: "Customer confirmed it works" },
      { status: "new", action: "message.reopen", reason: "Customer wrote again" },
    ] as const;
    for (const step of steps) {
      const response = await admin("messages/status", {
        id: stored!.id,
        status: step.status,
        reason: step.reason,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ message: { id: stored!.id, status: step.status } });
      const [row] = await app.services.db
        .select()
        .from(contactMessages)
        .where(eq(contactMessages.id, stored!.id));
      expect(row).toMatchObject({ status: step.status, statusChangedBy: STAFF_EMAIL });
      expect(row!.statusChangedAt).toBeInstanceOf(Date);
    }
    const entries = await auditEntries(stored!.id);
    expect(
      entries.map(({ action, targetType, reason, staffEmail, details }) => ({
        action,
        targetType,
        reason,
        staffEmail,
        details,
      })),
    ).toEqual([
      {
        action: "message.answer",
        targetType: "message",
        reason: steps[0].reason,
        staffEmail: STAFF_EMAIL,
        details: { from: "new", to: "answered" },
      },
      {
        action: "message.close",
        targetType: "message",
        reason: steps[1].reason,
        staffEmail: STAFF_EMAIL,
        details: { from: "answered", to: "closed" },
      },
      {
        action: "message.reopen",
        targetType: "message",
        reason: steps[2].reason,
        staffEmail: STAFF_EMAIL,
        details: { from: "closed", to: "new" },
      },
    ]);
  });

  it("changes a status without a reason (low-risk), still audited", async () => {
    const [stored] = await storeMessages(1);
    const response = await admin("messages/status", { id: stored!.id, status: "closed" });
    expect(response.status).toBe(200);
    const [entry] = await auditEntries(stored!.id);
    expect(entry).toMatchObject({ action: "message.close", reason: null, staffEmail: STAFF_EMAIL });
  });

  it("refuses bad input (400), an unknown message (404) and an unchanged status (409), changing nothing", async () => {
    const [stored] = await storeMessages(1);
    const valid = { id: stored!.id, status: "closed", reason: "Spam" };
    const bad: Array<[string, unknown]> = [
      ["a two-letter reason", { ...valid, reason: "no" }],
      ["an unknown status", { ...valid, status: "deleted" }],
      ["an id that is no uuid", { ...valid, id: "42" }],
      ["an extra field", { ...valid, email: "x@example.com" }],
    ];
    for (const [label, body] of bad) {
      const response = await admin("messages/status", body);
      expect(response.status, label).toBe(400);
      const error = (await response.json()) as { error: string; message: string };
      expect(typeof error.message, label).toBe("string");
    }
    expect((await admin("messages", { status: "spam" })).status).toBe(400);
    expect((await admin("messages", { page: 0 })).status).toBe(400);

    const unknown = await admin("messages/status", { ...valid, id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown.status).toBe(404);
    const same = await admin("messages/status", { ...valid, status: "new" });
    expect(same.status).toBe(409);

    const [row] = await app.services.db
      .select()
      .from(contactMessages)
      .where(eq(contactMessages.id, stored!.id));
    expect(row).toMatchObject({ status: "new", statusChangedAt: null, statusChangedBy: null });
    expect(await auditEntries(stored!.id)).toEqual([]);
    expect(await auditEntries("00000000-0000-4000-8000-000000000000")).toEqual([]);
  });

  it("shows the sender's subscriptions beside a message from the same e-mail in any case, and none for another", async () => {
    await buy(app, "pro-monthly", "Buyer@Example.com");
    const [subscription] = await queryRows<{ id: string }>(
      app.services.db,
      sql`select id from subscriptions where lower(customer_email) = 'buyer@example.com'`,
    );
    await storeMessages(1, { email: "BUYER@example.COM", subject: "From the buyer" });
    await storeMessages(1, { email: "someone-else@example.com", subject: "From someone else" });

    const { messages } = await list();
    const bySubject = Object.fromEntries(messages.map((message) => [message.subject, message]));
    expect(bySubject["From the buyer"]!.subscriptions).toEqual([
      {
        id: subscription!.id,
        planName: "Pro Monthly",
        status: "active",
        expiresAt: expect.any(String) as string,
        href: `/admin/subscriptions/${subscription!.id}`,
      },
    ]);
    expect(bySubject["From someone else"]!.subscriptions).toEqual([]);

    const page = await app.request("/admin/messages", { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("From the buyer");
    expect(html).toContain(`href="/admin/subscriptions/${subscription!.id}"`);
    expect(html).toContain("No subscription with this e-mail.");
    expect(html).toContain("Reply to Ada Obi");
    expect(html).not.toContain("mailto:someone-else@example.com");
  });

  it("filters and pages the /admin/messages page from its address, and says when the filter is not valid", async () => {
    await storeMessages(21);
    await storeMessages(1, {
      subject: "Answered one",
      status: "answered",
      statusChangedAt: new Date(),
      createdAt: new Date(),
    });
    const page = async (search: string) =>
      (await app.request(`/admin/messages${search}`, { headers: { cookie } })).text();
    const second = await page("?page=2");
    expect(second).toContain("Page 2 of 2");
    expect(second).toContain("A closed message is deleted 180 days after it was closed.");
    expect(second).toContain("Question 1<");
    expect(second).not.toContain("Question 21<");
    const answered = await page("?status=answered");
    expect(answered).toContain("Answered one");
    expect(answered).not.toContain("Question 1<");
    expect(await page("?status=bogus")).toContain("This address is not valid");
  });
});
