import fs from "node:fs/promises";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, user } from "#server/db/schema/auth.ts";
import { ACCOUNT_LIMIT } from "#server/domain/auth/account-limit.ts";
import { IP_LIMIT } from "#server/domain/auth/auth.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import {
  confirmationLink,
  confirmWithPassword,
  cookieHeader,
  createAccount,
  linkInQueuedEmail,
  PASSWORD,
  queuedEmails,
  signIn,
  signUp,
  OTHER_STAFF_EMAIL,
  STAFF_EMAIL,
} from "../../support/staff.ts";

function decodeQuotedPrintable(eml: string): string {
  return eml
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The confirmation link of a quoted-printable .eml. */
function emlLink(eml: string): string {
  const body = decodeQuotedPrintable(eml);
  const match = /https?:\/\/\S+\/admin\/login\?confirm=\S+/.exec(body);
  if (!match) throw new Error("no confirmation link in the .eml");
  return match[0];
}

/** Signs up and confirms with the sign-up password, as the confirmation page does. */
async function signUpAndConfirm(app: TestApp, email: string) {
  expect((await signUp(app, email)).status).toBe(200);
  expect((await confirmWithPassword(app, await confirmationLink(app, email))).status).toBe(200);
}

async function passwordHash(app: TestApp, email: string) {
  const [row] = await app.services.db
    .select({ password: account.password })
    .from(account)
    .innerJoin(user, eq(user.id, account.userId))
    .where(eq(user.email, email));
  return row?.password;
}

/** Requests a password reset for `email` and sets `newPassword` from the e-mailed link. */
async function resetPassword(app: TestApp, email: string, newPassword: string) {
  const requested = await app.request("/api/auth/request-password-reset", {
    json: { email, redirectTo: "/admin/login" },
  });
  expect(requested.status).toBe(200);
  const link = new URL(await linkInQueuedEmail(app, email, "auth.password-reset"));
  const opened = await app.request(link.pathname + link.search, { redirect: "manual" });
  expect(opened.status).toBe(302);
  const token = new URL(opened.headers.get("location")!, app.config.PUBLIC_URL).searchParams.get("token")!;
  return app.request("/api/auth/reset-password", { json: { newPassword, token } });
}

describe("staff sign-up, confirmation and sign-in", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it("queues the confirmation through the outbox as an .eml holding a link to a page that asks for the sign-up password", async () => {
    const email = "editor@naijalink.example";
    expect((await signUp(app, email)).status).toBe(200);
    await app.services.mail.drain();
    const outbox = path.join(app.dataDir, "outbox");
    const files = (await fs.readdir(outbox)).filter((name) => name.endsWith(".eml"));
    const messages = await Promise.all(files.map((name) => fs.readFile(path.join(outbox, name), "utf8")));
    const message = messages.find((text) => text.includes(email));
    expect(message, "an .eml addressed to the new account").toBeDefined();
    const link = emlLink(message!);
    expect(link).toBe(await confirmationLink(app, email));
    // Demo mode without SMTP: the same link is in the log (decision 030).
    const logged = app.log.entries().find((entry) => entry.msg === "e-mail verification link");
    expect(logged?.link).toBe(link);

    // Unconfirmed: the password alone does not open a session.
    const early = await signIn(app, email);
    expect(early.status).toBe(403);
    expect(early.headers.getSetCookie().join()).not.toContain("session_token=");

    // Opening the link shows the page; it confirms nothing by itself.
    const url = new URL(link);
    const page = await app.request(url.pathname + url.search);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Confirm Your Account");
    expect((await signIn(app, email)).status).toBe(403);
    // Nor does better-auth's own link, which only leads to that page.
    const token = url.searchParams.get("confirm")!;
    const bare = await app.request(`/api/auth/verify-email?token=${token}&callbackURL=/admin/blog`, {
      redirect: "manual",
    });
    expect(bare.status).toBe(302);
    expect(bare.headers.get("location")).toBe(link);
    expect((await signIn(app, email)).status).toBe(403);

    const confirmed = await confirmWithPassword(app, link);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toEqual({ email });
    const signedIn = await signIn(app, email);
    expect(signedIn.status).toBe(200);
  });

  it("sets the session cookie HttpOnly and SameSite=Lax, not Secure on plain http", async () => {
    const email = "cookie@example.com";
    await signUpAndConfirm(app, email);
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

describe.each(databaseKinds)("brute-force sign-in is limited (%s)", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    await createAccount(app, STAFF_EMAIL);
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`refuses an account with 429 to an address after ${ACCOUNT_LIMIT.limit} failed attempts from it, while the owner signs in from another, until the window has passed`, async () => {
    const attacker = "10.0.0.66";
    // The owner's own successful sign-ins never count against the account.
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, attacker)).status).toBe(200);
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      const response = await signIn(app, STAFF_EMAIL, `guess-${attempt}`, attacker);
      expect(response.status, `attempt ${attempt}`).toBe(401);
    }
    const blocked = await signIn(app, STAFF_EMAIL, PASSWORD, attacker);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(blocked.headers.get("retry-after"))).toBeLessThanOrEqual(ACCOUNT_LIMIT.windowMs / 1000);
    expect(blocked.headers.getSetCookie().join()).not.toContain("session_token=");
    // The owner, from her own address, is not locked out; nor is another account.
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, "10.0.1.1")).status).toBe(200);
    expect((await signIn(app, "someone@example.com", "whatever1", attacker)).status).toBe(401);
    // Each further address of a botnet gets its own handful of guesses, no more.
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      expect((await signIn(app, STAFF_EMAIL, `bot-${attempt}`, "10.0.4.1")).status).toBe(401);
    }
    expect((await signIn(app, STAFF_EMAIL, "bot-last", "10.0.4.1")).status).toBe(429);

    // Move the window into the past, as if the lock-out period had elapsed.
    await app.services.db.execute(
      sql`update rate_limit set last_request = last_request - ${ACCOUNT_LIMIT.windowMs} where key like 'app:sign-in:%'`,
    );
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, attacker)).status).toBe(200);
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
    const ip = "10.0.3.1";
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      await signIn(app, STAFF_EMAIL, `guess-again-${attempt}`, ip);
    }
    expect((await signIn(app, STAFF_EMAIL, PASSWORD, ip)).status).toBe(429);

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
    expect((await signIn(app, STAFF_EMAIL, newPassword, ip)).status).toBe(200);
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
      await signUpAndConfirm(app, email);
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

describe.each(databaseKinds)("a staff address signed up by someone else (%s)", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  const strangersPassword = "the stranger's own password";
  const ownersPassword = "the owner's chosen passphrase";

  async function reachesAdminApi(response: Response) {
    const cookie = cookieHeader(response);
    if (!cookie.includes("session_token=")) return false;
    const list = await app.request("/api/blog-admin/list", { json: {}, headers: { cookie } });
    return list.status === 200;
  }

  it("cannot be confirmed into the stranger's hands by the owner's click; the owner takes it with a password reset", async () => {
    expect((await signUp(app, STAFF_EMAIL, strangersPassword, "203.0.113.66")).status).toBe(200);
    // The owner opens the e-mailed link, as she would from her mailbox.
    const link = await confirmationLink(app, STAFF_EMAIL);
    const url = new URL(link);
    await app.request(url.pathname + url.search, { redirect: "manual" });
    // The stranger's password does not sign in to a staff account.
    const strangers = await signIn(app, STAFF_EMAIL, strangersPassword, "203.0.113.66");
    expect(strangers.status).not.toBe(200);
    expect(await reachesAdminApi(strangers)).toBe(false);
    // Her own password does not confirm the stranger's account.
    const refused = await confirmWithPassword(app, link, ownersPassword);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { message: string }).message).toMatch(/Forgot your password\?/);
    expect((await signIn(app, STAFF_EMAIL, strangersPassword, "203.0.113.66")).status).not.toBe(200);

    // A reset link reaches only the mailbox: choosing her password there confirms the address.
    expect((await resetPassword(app, STAFF_EMAIL, ownersPassword)).status).toBe(200);
    const owners = await signIn(app, STAFF_EMAIL, ownersPassword);
    expect(owners.status).toBe(200);
    expect(await reachesAdminApi(owners)).toBe(true);
    const afterReset = await signIn(app, STAFF_EMAIL, strangersPassword, "203.0.113.66");
    expect(afterReset.status).toBe(401);
    // The old link, with the stranger's password, confirms nothing and opens nothing now.
    expect((await confirmWithPassword(app, link, strangersPassword)).status).toBe(401);
  });

  it("keeps the first password when the address is signed up again before it is confirmed, and tells the owner", async () => {
    const email = OTHER_STAFF_EMAIL;
    expect((await signUp(app, email, strangersPassword, "203.0.113.67")).status).toBe(200);
    const stored = await passwordHash(app, email);
    expect(stored).toBeTruthy();
    const again = await signUp(app, email, ownersPassword, "198.51.100.7");
    // Answered like a new sign-up, so it does not reveal that the address is taken.
    expect(again.status).toBe(200);
    expect(await passwordHash(app, email)).toBe(stored);
    expect((await confirmWithPassword(app, await confirmationLink(app, email), ownersPassword)).status).toBe(
      401,
    );
    const notice = (await queuedEmails(app, email)).find((queued) => queued.kind === "auth.existing-account");
    expect(notice?.text).toContain("Forgot your password?");
  });
});
