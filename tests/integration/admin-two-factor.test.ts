import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createAccount, PASSWORD, signIn, STAFF_EMAIL, totp } from "./admin-helpers.ts";

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
  });
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
