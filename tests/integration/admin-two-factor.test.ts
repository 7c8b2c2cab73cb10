import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createAccount, PASSWORD, signIn, STAFF_EMAIL } from "./admin-helpers.ts";

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
function totp(secretBase32: string, now = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const digest = crypto.createHmac("sha1", base32Decode(secretBase32)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0xf;
  const value = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

describe("optional two-factor sign-in for staff", () => {
  let app: TestApp;
  let secret: string;
  let backupCodes: string[];

  beforeAll(async () => {
    app = await createTestApp();
    const { cookie } = await createAccount(app, STAFF_EMAIL);
    const enabled = await app.request("/api/auth/two-factor/enable", {
      json: { password: PASSWORD },
      headers: { cookie },
    });
    expect(enabled.status).toBe(200);
    const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
    const uri = new URL(body.totpURI);
    expect(uri.protocol).toBe("otpauth:");
    expect(decodeURIComponent(uri.pathname)).toContain(STAFF_EMAIL);
    secret = uri.searchParams.get("secret")!;
    backupCodes = body.backupCodes;
    expect(backupCodes.length).toBeGreaterThanOrEqual(8);
    // Enrolment completes only once a code from the app is confirmed.
    const confirmed = await app.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp(secret) },
      headers: { cookie },
    });
    expect(confirmed.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  async function passwordStep(ip: string) {
    const response = await signIn(app, STAFF_EMAIL, PASSWORD, ip);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ twoFactorRedirect: true });
    const cookie = cookiesOf(response);
    expect(cookie).not.toContain("session_token=");
    // The password alone does not reach the admin API.
    const list = await app.request("/api/blog-admin/list", { json: {}, headers: { cookie } });
    expect(list.status).toBe(401);
    return cookie;
  }

  it("asks for a code after the password and opens a session only with the right one", async () => {
    const pending = await passwordStep("198.51.100.1");
    const wrong = await app.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp(secret, Date.now() - 10 * 60_000) },
      headers: { cookie: pending },
      clientIp: "198.51.100.1",
    });
    expect(wrong.status).toBe(401);
    const right = await app.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp(secret) },
      headers: { cookie: pending },
      clientIp: "198.51.100.1",
    });
    expect(right.status).toBe(200);
    const session = cookiesOf(right);
    expect(session).toContain("session_token=");
    const list = await app.request("/api/blog-admin/list", { json: {}, headers: { cookie: session } });
    expect(list.status).toBe(200);
  });

  it("accepts a backup code once", async () => {
    const pending = await passwordStep("198.51.100.2");
    const used = await app.request("/api/auth/two-factor/verify-backup-code", {
      json: { code: backupCodes[0] },
      headers: { cookie: pending },
      clientIp: "198.51.100.2",
    });
    expect(used.status).toBe(200);
    const again = await passwordStep("198.51.100.3");
    const reused = await app.request("/api/auth/two-factor/verify-backup-code", {
      json: { code: backupCodes[0] },
      headers: { cookie: again },
      clientIp: "198.51.100.3",
    });
    expect(reused.status).toBe(401);
  });
});
