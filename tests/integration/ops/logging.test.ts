// Issue 25, logs: every line goes through the one JSON logger (better-auth's and React Router's
// errors too, never `# SERVER_ERROR:` stack traces on stdout), and its fields are an allow-list:
// no contact message bodies, no e-mail addresses, no query parameters, no client addresses.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { createAccount, PASSWORD, signIn } from "../../support/staff.ts";

const EMAIL = "log-owner@naijalink.example";

describe("what reaches the log when something breaks", () => {
  let app: TestApp;
  const printed: string[] = [];
  beforeAll(async () => {
    app = await createTestApp({ env: { STAFF_ADMINS: EMAIL } });
    await createAccount(app, EMAIL);
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => vi.restoreAllMocks());

  const watchConsole = () => {
    printed.length = 0;
    for (const method of ["error", "log", "warn", "info"] as const)
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void printed.push(args.map(String).join(" ")),
      );
  };

  it("logs a failure inside better-auth as one JSON line with no e-mail, password or client address, and prints nothing", async () => {
    watchConsole();
    await app.services.db.execute(sql`alter table "session" rename to session_away`);
    try {
      const response = await signIn(app, EMAIL, PASSWORD, "198.51.100.77");
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: "Internal error", message: expect.any(String) });
    } finally {
      await app.services.db.execute(sql`alter table session_away rename to "session"`);
    }
    expect(printed.join("\n")).not.toContain("SERVER_ERROR");
    expect(printed).toEqual([]);
    const line = app.log.entries().find((entry) => entry.msg === "unexpected API error");
    expect(line).toMatchObject({ route: "/api/auth/sign-in/email", err: { type: expect.any(String) } });
    for (const secret of [EMAIL, PASSWORD, "198.51.100.77"]) expect(app.log.text).not.toContain(secret);
  });

  it("never writes a contact message's body or sender to the log, even when storing it fails", async () => {
    watchConsole();
    const body = "My flat is at 12 Secret Close, here is my card 4242";
    await app.services.db.execute(sql`alter table contact_messages rename to contact_messages_away`);
    try {
      const response = await app.request("/api/send-contact-email", {
        json: {
          name: "Ada Secretname",
          email: "ada.sender@example.com",
          subject: "Private subject",
          message: body,
        },
      });
      expect(response.status).toBe(500);
    } finally {
      await app.services.db.execute(sql`alter table contact_messages_away rename to contact_messages`);
    }
    expect(app.log.entries().some((entry) => entry.msg === "unexpected API error")).toBe(true);
    for (const secret of [body, "Ada Secretname", "ada.sender@example.com", "Private subject"])
      expect(app.log.text).not.toContain(secret);
    expect(printed).toEqual([]);
  });

  it("logs a route's own failure through the JSON logger with the route, not the URL's query", async () => {
    watchConsole();
    await app.services.db.execute(sql`alter table blog_posts rename to blog_posts_away`);
    try {
      const response = await app.request("/blog?email=ada.query@example.com");
      expect(response.status).toBeGreaterThanOrEqual(200);
    } finally {
      await app.services.db.execute(sql`alter table blog_posts_away rename to blog_posts`);
    }
    expect(app.log.text).not.toContain("ada.query@example.com");
    expect(printed).toEqual([]);
  });
});
