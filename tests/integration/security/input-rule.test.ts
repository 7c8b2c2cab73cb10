// Issue 25, one input rule: a NUL or an unpaired surrogate anywhere in a request is a 400
// `{ error, message }` before any handler or library sees it (JSON and form bodies, query strings,
// better-auth's routes too); a body of a type its route does not read is a 415; rate-limit keys
// built from odd strings never throw. The fuzz test (fuzz.test.ts) covers every POST endpoint.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import { createTestApp, startTestServer, type TestApp } from "../../support/app.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { startCheckout } from "../../support/purchase.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

const ODD = ["a\u0000b", "a\ud800b", "\udfff", "x\u0000"];
const HOSTILE_MESSAGE = "The request holds a NUL character or an unpaired surrogate";

describe.each(databaseKinds)("the input rule on %s", (kind) => {
  let app: TestApp;
  let staff: string;
  let customer: string;
  let sessionId: string;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    staff = (await createAccount(app, STAFF_EMAIL)).cookie;
    sessionId = await buy(app, "pro-monthly", "rule-buyer@example.com");
    customer = await signedInCustomer(app, "rule-buyer@example.com");
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  /** Each endpoint the issue found answering 500, with a body that is otherwise well formed. */
  const calls: Array<
    [path: string, body: (odd: string) => unknown, who: "anonymous" | "staff" | "customer"]
  > = [
    [
      "/api/send-contact-email",
      (odd) => ({ name: odd, email: "a@example.com", subject: "s", message: odd }),
      "anonymous",
    ],
    ["/api/verify-payment", (odd) => ({ sessionId: odd }), "anonymous"],
    ["/api/auth/sign-in/email", (odd) => ({ email: `${odd}@example.com`, password: odd }), "anonymous"],
    [
      "/api/auth/sign-up/email",
      (odd) => ({ email: "x@example.com", password: `long ${odd} password`, name: odd }),
      "anonymous",
    ],
    [
      "/api/auth/request-password-reset",
      (odd) => ({ email: `${odd}@example.com`, redirectTo: "/admin/login" }),
      "anonymous",
    ],
    ["/api/auth/reset-password", (odd) => ({ newPassword: `long ${odd} password`, token: odd }), "anonymous"],
    [
      "/api/account/auth/sign-in/magic-link",
      (odd) => ({ email: `${odd}@example.com`, callbackURL: "/account" }),
      "anonymous",
    ],
    ["/api/account/devices/move", (odd) => ({ deviceId: odd, region: odd }), "customer"],
    ["/api/admin/search", (odd) => ({ q: odd, page: 1 }), "staff"],
    ["/api/admin/subscriptions/extend", (odd) => ({ subscriptionId: odd, days: 1, reason: odd }), "staff"],
    [
      "/api/admin/servers/add",
      (odd) => ({ name: odd, endpoint: odd, ipv4: odd, ipv6: odd, reason: odd }),
      "staff",
    ],
    [
      "/api/blog-admin/create",
      (odd) => ({ title: odd, slug: "s", content: odd, author: odd, status: "draft", published_at: null }),
      "staff",
    ],
  ];

  it("answers a NUL or unpaired surrogate in any JSON string (keys too) with 400 { error, message }, changing nothing", async () => {
    const before = await rowCounts(app);
    for (const [path, body, who] of calls) {
      const cookie = who === "staff" ? staff : who === "customer" ? customer : undefined;
      for (const odd of ODD) {
        for (const json of [body(odd), { [odd]: 1, ...(body("ok") as object) }]) {
          const response = await app.request(path, {
            json,
            headers: { origin: app.config.PUBLIC_URL, ...(cookie ? { cookie } : {}) },
          });
          expect(response.status, `${path} ${JSON.stringify(json)}`).toBe(400);
          expect(await response.json()).toEqual({
            error: "Invalid request",
            message: expect.stringContaining(HOSTILE_MESSAGE),
          });
        }
      }
    }
    expect(await rowCounts(app)).toEqual(before);
  });

  it("answers a NUL in a query string or path segment with 400, pages and API alike", async () => {
    for (const path of [
      "/blog?page=%00",
      "/admin/audit?action=a%00",
      "/api/check?x=%00",
      "/blog/a%00b",
      "/account?token=%00",
    ]) {
      const response = await app.request(path, { headers: { cookie: staff } });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ error: "Invalid request" });
    }
  });

  it("refuses a form with a NUL, and answers a body of a type its route does not read with 415", async () => {
    const form = await app.request("/account", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%00@example.com",
    });
    expect(form.status).toBe(400);
    const { sessionId: unpaid } = await startCheckout(app, "unlock", "rule-415@example.com");
    for (const path of [`/checkout/${unpaid}`, "/account"]) {
      for (const [type, body] of [
        ["text/plain", "cardNumber=4242424242424242"],
        [
          "application/json",
          JSON.stringify({ cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123" }),
        ],
        ["multipart/form-data; boundary=x", "--x--"],
      ]) {
        const response = await app.request(path, {
          method: "POST",
          headers: { "content-type": type! },
          body,
        });
        expect(response.status, `${path} ${type}`).toBe(415);
        expect(await response.json()).toEqual({
          error: "Unsupported media type",
          message: expect.any(String),
        });
      }
    }
    const api = await app.request("/api/send-contact-email", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=a&email=a@example.com&subject=s&message=m",
    });
    expect(api.status).toBe(415);
    // The refused payments changed nothing: the session is still open.
    const [row] = await queryRows<{ status: string }>(
      app.services.db,
      sql`select status from checkout_sessions where id = ${unpaid}`,
    );
    expect(row?.status).toBe("open");
    expect(sessionId).toBeTruthy();
  });

  it("counts rate limits on keys made of any string without throwing", async () => {
    const keys = [...ODD, "é".repeat(10_000), "\u0000".repeat(3), "a\ud800\udc00b"];
    // Some of these store alike (U+FFFD for what PostgreSQL refuses) and share a counter.
    for (const key of keys) {
      const result = await consumeRateLimit(app.services.db, `rule:${key}`, { limit: 100, windowMs: 60_000 });
      expect(result.allowed, key.slice(0, 20)).toBe(true);
    }
    const again = await consumeRateLimit(app.services.db, `rule:${keys[4]}`, { limit: 1, windowMs: 60_000 });
    expect(again.allowed).toBe(false);
  });

  it("leaves ordinary requests alone: a verified customer's rename with emoji and accents", async () => {
    const [device] = await queryRows<{ id: string }>(
      app.services.db,
      sql`select d.id from devices d join subscriptions s on s.id = d.subscription_id where s.checkout_session_id = ${sessionId}`,
    );
    for (const name of ["Adé's 📱", "👨‍👩‍👧 iPad"]) {
      const response = await accountRequest(app, "devices/rename", { deviceId: device!.id, name }, customer);
      expect(response.status, name).toBe(200);
    }
  });

  it("refuses a device name with a bidi control or any other control or format character, keeping the old name", async () => {
    const [device] = await queryRows<{ id: string; name: string | null }>(
      app.services.db,
      sql`select d.id, d.name from devices d join subscriptions s on s.id = d.subscription_id where s.checkout_session_id = ${sessionId}`,
    );
    for (const bad of [
      "\u202a",
      "\u202b",
      "\u202c",
      "\u202d",
      "\u202e",
      "\u2066",
      "\u2067",
      "\u2068",
      "\u2069",
      "\u200b",
      "\u00ad",
      "\u2028",
      "\t",
      "\ue000",
    ]) {
      const response = await accountRequest(
        app,
        "devices/rename",
        { deviceId: device!.id, name: `phone${bad}gpj.exe` },
        customer,
      );
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(await response.json()).toEqual({
        error: "Invalid request",
        message: "name: A device name cannot contain control or formatting characters.",
      });
    }
    const [after] = await queryRows<{ name: string | null }>(
      app.services.db,
      sql`select name from devices where id = ${device!.id}`,
    );
    expect(after!.name).toBe(device!.name);
  });
});

describe("the input rule on the real HTTP server", () => {
  it("refuses a NUL in a JSON body, a query and a form before any route runs", async () => {
    const server = await startTestServer({ backgroundJobs: false });
    try {
      const json = await fetch(`${server.url}/api/send-contact-email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "a\u0000", email: "a@example.com", subject: "s", message: "m" }),
      });
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ message: expect.stringContaining(HOSTILE_MESSAGE) });
      expect((await fetch(`${server.url}/blog?page=%00`)).status).toBe(400);
      const form = await fetch(`${server.url}/account`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "email=a@example.com",
      });
      expect(form.status).toBe(415);
      expect(server.log.text).not.toContain("unexpected");
    } finally {
      await server.stop();
    }
  });
});

async function rowCounts(app: TestApp): Promise<Record<string, number>> {
  const rows = await queryRows<{ name: string }>(
    app.services.db,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not similar to '%(session|rate_limit|verification)%'`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of rows) {
    const [row] = await queryRows<{ count: number }>(
      app.services.db,
      sql.raw(`select count(*)::int as count from "${name}"`),
    );
    counts[name] = row!.count;
  }
  return counts;
}
