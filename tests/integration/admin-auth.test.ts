import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_LIMIT, IP_LIMIT } from "#server/domain/auth/auth.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createAccount, PASSWORD, signIn, signUp, STAFF_EMAIL, verificationLink } from "./admin-helpers.ts";

function decodeQuotedPrintable(eml: string): string {
  return eml
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The confirmation link of a quoted-printable .eml. */
function emlLink(eml: string): string {
  const body = decodeQuotedPrintable(eml);
  const match = /https?:\/\/\S+\/api\/auth\/verify-email\?\S+/.exec(body);
  if (!match) throw new Error("no confirmation link in the .eml");
  return match[0];
}

describe("staff sign-up, confirmation and sign-in", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("queues the confirmation through the outbox as an .eml holding the link, which leads to /admin/blog", async () => {
    const email = "editor@naijalink.example";
    expect((await signUp(app, email)).status).toBe(200);
    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    const files = (await fs.readdir(outbox)).filter((name) => name.endsWith(".eml"));
    const messages = await Promise.all(files.map((name) => fs.readFile(path.join(outbox, name), "utf8")));
    const message = messages.find((text) => text.includes(email));
    expect(message, "an .eml addressed to the new account").toBeDefined();
    const link = emlLink(message!);
    expect(link).toBe(verificationLink(app, email)); // the same link is in the log

    // Unconfirmed: the password alone does not open a session.
    const early = await signIn(app, email);
    expect(early.status).toBe(403);
    expect(early.headers.getSetCookie().join()).not.toContain("session_token=");

    const url = new URL(link);
    const confirmed = await app.request(url.pathname + url.search, { redirect: "manual" });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/admin/blog");
    const signedIn = await signIn(app, email);
    expect(signedIn.status).toBe(200);
  });

  it("sets the session cookie HttpOnly and SameSite=Lax, not Secure on plain http", async () => {
    const email = "cookie@example.com";
    await signUp(app, email);
    const url = new URL(verificationLink(app, email));
    await app.request(url.pathname + url.search, { redirect: "manual" });
    const response = await signIn(app, email);
    const session = response.headers.getSetCookie().find((cookie) => cookie.includes("session_token="))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).not.toMatch(/Secure/i);
  });

  it("never writes a password to the log", async () => {
    await signIn(app, STAFF_EMAIL, "a wrong password that must not leak");
    expect(app.log.text).not.toContain(PASSWORD);
    expect(app.log.text).not.toContain("a wrong password that must not leak");
  });
});

describe("brute-force sign-in is limited", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await createAccount(app, STAFF_EMAIL);
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`refuses an account with 429 after ${ACCOUNT_LIMIT.limit} failed attempts from any mix of addresses, then lets the owner back in once the window has passed`, async () => {
    // The owner's own successful sign-ins never count against the account.
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, "10.0.2.1")).status).toBe(200);
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      const response = await signIn(app, STAFF_EMAIL, `guess-${attempt}`, `10.0.0.${attempt}`);
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const blocked = await signIn(app, STAFF_EMAIL, PASSWORD, "10.0.1.1");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(blocked.headers.get("retry-after"))).toBeLessThanOrEqual(ACCOUNT_LIMIT.windowMs / 1000);
    expect(blocked.headers.getSetCookie().join()).not.toContain("session_token=");
    // Another account is not affected.
    expect((await signIn(app, "someone@example.com", "whatever1", "10.0.1.2")).status).toBe(401);

    // Move the window into the past, as if the lock-out period had elapsed.
    await app.services.db.execute(
      sql`update rate_limit set last_request = last_request - ${ACCOUNT_LIMIT.windowMs} where key like 'app:sign-in:%'`,
    );
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, "10.0.1.3")).status).toBe(200);
  });

  it(`refuses one address with 429 after ${IP_LIMIT.max} sign-in attempts across accounts`, async () => {
    const ip = "192.0.2.77";
    for (let attempt = 1; attempt <= IP_LIMIT.max; attempt++) {
      const response = await signIn(app, `victim${attempt}@example.com`, "wrong-password", ip);
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    expect((await signIn(app, "victim-last@example.com", "wrong-password", ip)).status).toBe(429);
    // A forged X-Forwarded-For does not escape the limit: the address comes from the connection.
    const forged = await app.request("/api/auth/sign-in/email", {
      json: { email: "victim-forged@example.com", password: "wrong-password" },
      headers: { "x-forwarded-for": "203.0.113.9", "x-naijalink-client-ip": "203.0.113.10" },
      clientIp: ip,
    });
    expect(forged.status).toBe(429);
  });

  it("lets the owner end a lock-out with a password reset from the e-mailed link, which is never logged", async () => {
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      await signIn(app, STAFF_EMAIL, `guess-again-${attempt}`, `10.0.3.${attempt}`);
    }
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, "10.0.3.100")).status).toBe(429);

    const requested = await app.request("/api/auth/request-password-reset", {
      json: { email: STAFF_EMAIL, redirectTo: "/admin/login" },
    });
    expect(requested.status).toBe(200);
    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    let link: string | undefined;
    for (const name of await fs.readdir(outbox)) {
      const body = decodeQuotedPrintable(await fs.readFile(path.join(outbox, name), "utf8"));
      link ??= /https?:\/\/\S+\/api\/auth\/reset-password\/\S+/.exec(body)?.[0];
    }
    expect(link, "a reset link in an .eml").toBeDefined();
    const url = new URL(link!);
    const opened = await app.request(url.pathname + url.search, { redirect: "manual" });
    expect(opened.status).toBe(302);
    const landing = new URL(opened.headers.get("location")!, app.config.PUBLIC_URL);
    expect(landing.pathname).toBe("/admin/login");
    const token = landing.searchParams.get("token")!;
    expect(token).toBeTruthy();
    expect(app.log.text).not.toContain(token);

    const newPassword = "a brand new passphrase";
    const reset = await app.request("/api/auth/reset-password", { json: { newPassword, token } });
    expect(reset.status).toBe(200);
    expect((await signIn(app, STAFF_EMAIL, newPassword, "10.0.3.101")).status).toBe(200);
  });

  it("limits sign-up per address too", async () => {
    const ip = "192.0.2.88";
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= IP_LIMIT.max + 1; attempt++) {
      statuses.push((await signUp(app, `new${attempt}@example.com`, "password-123", ip)).status);
    }
    expect(statuses.slice(0, IP_LIMIT.max).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe("cookies behind HTTPS", () => {
  it("marks the session cookie Secure when PUBLIC_URL is https", async () => {
    const app = await createTestApp({ env: { PUBLIC_URL: "https://naijalink.example" } });
    try {
      const email = "secure@example.com";
      await signUp(app, email);
      const url = new URL(verificationLink(app, email));
      await app.request(url.pathname + url.search, { redirect: "manual" });
      const response = await signIn(app, email);
      const session = response.headers.getSetCookie().find((cookie) => cookie.includes("session_token="))!;
      expect(session).toMatch(/; Secure/i);
      expect(session).toMatch(/HttpOnly/i);
      expect(session).toMatch(/SameSite=Lax/i);
    } finally {
      await app.close();
    }
  });
});
