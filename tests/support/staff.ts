// Staff-account helpers for the admin tests: real sign-up, confirmation and sign-in.
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { outboxMessages } from "#server/db/schema/index.ts";
import type { OutgoingEmail } from "#server/domain/mail/transport.ts";
import type { TestApp } from "./app.ts";
import { queuedEmailsWhere } from "./outbox.ts";

export const STAFF_EMAIL = "admin@naijalink.example";
export const OTHER_STAFF_EMAIL = "editor@naijalink.example";
export const PASSWORD = "correct horse battery staple";

/** The e-mails queued in the outbox for `to`, oldest first, as the mail worker will send them. */
export function queuedEmails(app: TestApp, to: string): Promise<OutgoingEmail[]> {
  return queuedEmailsWhere(app.services, eq(outboxMessages.toAddress, to));
}

/** The first link in the newest queued e-mail of this kind to `to`. */
export async function linkInQueuedEmail(app: TestApp, to: string, kind: string): Promise<string> {
  const email = (await queuedEmails(app, to)).filter((queued) => queued.kind === kind).at(-1);
  const link = email && /https?:\/\/\S+/.exec(email.text)?.[0];
  if (!link) throw new Error(`no ${kind} e-mail with a link was queued for ${to}`);
  return link;
}

/** The confirmation link e-mailed to `email` after its sign-up. */
export function confirmationLink(app: TestApp, email: string): Promise<string> {
  return linkInQueuedEmail(app, email, "auth.verify-email");
}

/** What the confirmation page sends: the token of the e-mailed link and a password. */
export async function confirmWithPassword(
  app: TestApp,
  link: string,
  password = PASSWORD,
  clientIp?: string,
) {
  const token = new URL(link).searchParams.get("confirm") ?? "";
  return app.request("/api/auth/confirm-email", { json: { token, password }, clientIp });
}

export function cookieHeader(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

export async function signUp(app: TestApp, email: string, password = PASSWORD, clientIp?: string) {
  return app.request("/api/auth/sign-up/email", {
    json: { email, password, name: email.split("@")[0], callbackURL: "/admin/blog" },
    clientIp,
  });
}

export async function signIn(app: TestApp, email: string, password = PASSWORD, clientIp?: string) {
  return app.request("/api/auth/sign-in/email", { json: { email, password }, clientIp });
}

/** Signs up, optionally confirms the address, signs in; returns the session cookie header. */
export async function createAccount(
  app: TestApp,
  email: string,
  options: { verified?: boolean } = {},
): Promise<{ cookie: string; bearer?: string }> {
  const signedUp = await signUp(app, email);
  expect(signedUp.status).toBe(200);
  if (options.verified ?? true) {
    const confirmed = await confirmWithPassword(app, await confirmationLink(app, email));
    expect(confirmed.status).toBe(200);
    const signedIn = await signIn(app, email);
    expect(signedIn.status).toBe(200);
    return {
      cookie: cookieHeader(signedIn),
      bearer: signedIn.headers.get("set-auth-token") ?? undefined,
    };
  }
  // An unconfirmed account cannot sign in with a password; its only session would
  // come from elsewhere, so the tests mint one directly to prove the server's check.
  const signedIn = await signIn(app, email);
  expect(signedIn.status).toBe(403);
  return { cookie: "" };
}

function base32Decode(input: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of input.replace(/=+$/, "").toUpperCase()) {
    bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  }
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((byte) => parseInt(byte, 2)));
}

/** RFC 6238 with the authenticator-app defaults (SHA-1, 30 s, 6 digits). */
export function totp(secretBase32: string, now = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const digest = crypto.createHmac("sha1", base32Decode(secretBase32)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0xf;
  const value = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}
