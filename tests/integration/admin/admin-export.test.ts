// CSV exports of orders and subscriptions for a date range (issue 24, decision 106): admins only,
// audited with the range, and streamed: rows are read a page at a time while the download runs.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions, staffAuditLog, subscriptions } from "#server/db/schema/index.ts";
import { EXPORT_PAGE_SIZE } from "#server/domain/ops/exports.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

const BUYER = "export-buyer@example.com";
const BULK_DAY = "2026-03-10";
const BULK_ROWS = 10_000;

/** The CSV's records as arrays of cells (RFC 4180: quoted cells may hold commas, quotes, line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  const body = text.replace(/^\uFEFF/, "");
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (quoted && char === '"' && body[index + 1] === '"') {
      cell += '"';
      index++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ",") {
      record.push(cell);
      cell = "";
    } else if (!quoted && char === "\r" && body[index + 1] === "\n") {
      records.push([...record, cell]);
      record = [];
      cell = "";
      index++;
    } else {
      cell += char;
    }
  }
  if (cell || record.length) records.push([...record, cell]);
  return records;
}

describe.each(databaseKinds)("CSV exports of orders and subscriptions, on %s", (kind) => {
  let app: TestApp;
  const cookies = { admin: "", editor: "", customer: "" };
  let sessionId: string;
  let subscriptionId: string;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookies.admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    cookies.editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    sessionId = await buy(app, "pro-monthly", BUYER);
    cookies.customer = await signedInCustomer(app, BUYER);
    const [row] = await app.services.db
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    subscriptionId = row!.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  function exportCsv(fields: Record<string, string>, cookie = cookies.admin) {
    return app.request("/api/admin/export", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });
  }

  const exportEntries = () =>
    app.services.db
      .select()
      .from(staffAuditLog)
      .where(sql`${staffAuditLog.action} like '%.export'`);

  it("refuses anyone but an admin (signed out, a customer, an editor) and records nothing", async () => {
    const before = (await exportEntries()).length;
    const fields = { kind: "orders", from: today, to: today };
    for (const [caller, cookie, status] of [
      ["anonymous", "", 401],
      ["customer", cookies.customer, 403],
      ["editor", cookies.editor, 403],
    ] as const) {
      const response = await exportCsv(fields, cookie);
      expect(response.status, caller).toBe(status);
      expect(response.headers.get("content-type"), caller).toMatch(/application\/json/);
      expect(await response.json(), caller).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
      });
    }
    expect(await exportEntries()).toHaveLength(before);
  });

  it("exports the orders of the range as a CSV download, and the audit log keeps who and which range", async () => {
    await app.services.db
      .update(checkoutSessions)
      .set({ customerName: '\u200b=HYPERLINK("http://evil.example","Ada")' })
      .where(eq(checkoutSessions.id, sessionId));
    const response = await exportCsv({ kind: "orders", from: today, to: today });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="naijalink-orders-${today}-to-${today}.csv"`,
    );
    const [header, ...rows] = parseCsv(await response.text());
    expect(header).toEqual([
      "ordered_at",
      "order_status",
      "paid_at",
      "checkout_session_id",
      "order_number",
      "plan",
      "amount",
      "currency",
      "customer_name",
      "customer_email",
      "payment_reference",
      "subscription_id",
      "subscription_status",
    ]);
    const row = rows.find((cells) => cells[3] === sessionId);
    expect(row).toBeDefined();
    expect(row!.slice(4, 10)).toEqual([
      orderNumberOf(subscriptionId),
      "Pro Monthly",
      "7.99",
      "USD",
      // A spreadsheet must show the text, not run it, even behind a zero-width space.
      `'=HYPERLINK("http://evil.example","Ada")`,
      BUYER,
    ]);
    expect(row![11]).toBe(subscriptionId);
    const [entry] = (await exportEntries()).filter((logged) => logged.action === "orders.export");
    expect(entry).toMatchObject({
      staffEmail: STAFF_EMAIL,
      targetType: "export",
      targetId: "orders",
      details: { from: today, to: today },
    });
  });

  it("exports subscriptions, and leaves out what was created outside the range", async () => {
    const response = await exportCsv({ kind: "subscriptions", from: today, to: today });
    expect(response.status).toBe(200);
    const [header, ...rows] = parseCsv(await response.text());
    expect(header!.slice(0, 5)).toEqual(["created_at", "order_number", "subscription_id", "plan", "status"]);
    expect(rows.map((cells) => cells[2])).toEqual([subscriptionId]);
    expect(rows[0]!.slice(3, 10)).toEqual([
      "Pro Monthly",
      "active",
      expect.any(String),
      "false",
      "3",
      expect.any(String),
      BUYER,
    ]);
    const empty = await exportCsv({ kind: "subscriptions", from: "2020-01-01", to: "2020-01-31" });
    expect(parseCsv(await empty.text())).toEqual([header]);
  });

  it.each([
    ["an unknown kind", { kind: "customers", from: today, to: today }],
    ["a date that is not one", { kind: "orders", from: "2026-02-30", to: today }],
    ["a range that ends before it starts", { kind: "orders", from: today, to: "2020-01-01" }],
    ["a missing date", { kind: "orders", from: today }],
    ["an unknown field", { kind: "orders", from: today, to: today, limit: "5" }],
  ])("refuses %s with a 400 and records nothing", async (_case, fields) => {
    const before = (await exportEntries()).length;
    const response = await exportCsv(fields as Record<string, string>);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Invalid request", message: expect.any(String) });
    expect(await exportEntries()).toHaveLength(before);
  });

  it("refuses a JSON body (415) and a GET (405)", async () => {
    const json = await app.request("/api/admin/export", {
      json: { kind: "orders", from: today, to: today },
      headers: { cookie: cookies.admin },
    });
    expect(json.status).toBe(415);
    const get = await app.request("/api/admin/export", { headers: { cookie: cookies.admin } });
    expect(get.status).toBe(405);
  });

  it("streams 10,000 orders: the first chunk comes before the last rows are read, and memory stays bounded", async () => {
    await app.services.db.execute(sql`
      insert into checkout_sessions (id, provider, plan_id, customer_email, amount_cents, currency, status, created_at)
      select 'cs_bulk_' || lpad(g::text, 5, '0'), 'test', 'unlock', 'bulk-' || g || '@example.com', 299, 'usd',
             'expired', ${`${BULK_DAY}T00:00:00Z`}::timestamptz + g * interval '1 second'
      from generate_series(1, ${BULK_ROWS}) g`);
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const response = await exportCsv({ kind: "orders", from: BULK_DAY, to: BULK_DAY });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(first.done).toBe(false);
    const firstRows = parseCsv(decoder.decode(first.value, { stream: true })).length - 1;
    expect(firstRows).toBeLessThanOrEqual(EXPORT_PAGE_SIZE);
    // Written after the first chunk has arrived, dated after every other row of the range: only
    // an export that is still reading the database finds it.
    await app.services.db.insert(checkoutSessions).values({
      id: "cs_bulk_written_late",
      provider: "test",
      planId: "unlock",
      customerEmail: "late@example.com",
      amountCents: 299,
      status: "expired",
      createdAt: new Date(`${BULK_DAY}T23:59:59Z`),
    });
    let text = decoder.decode(first.value, { stream: true });
    let chunks = 1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
    const [, ...rows] = parseCsv(text);
    expect(rows).toHaveLength(BULK_ROWS + 1);
    expect(rows.at(-1)![3]).toBe("cs_bulk_written_late");
    expect(new Set(rows.map((cells) => cells[3])).size).toBe(BULK_ROWS + 1);
    expect(rows.map((cells) => cells[0])).toEqual(rows.map((cells) => cells[0]).sort());
    expect(chunks).toBeGreaterThanOrEqual(Math.ceil(BULK_ROWS / EXPORT_PAGE_SIZE));
    // Generous: the text read here is itself a few MB; a page is a few hundred KB.
    expect(heapPeak - heapBefore).toBeLessThan(50 * 1024 * 1024);
  });
});
