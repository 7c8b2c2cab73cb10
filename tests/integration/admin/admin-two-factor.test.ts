import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { user } from "#server/db/schema/auth.ts";
import { ACCOUNT_LIMIT } from "#server/domain/auth/account-limit.ts";
import { TWO_FACTOR_KEPT } from "#server/domain/auth/auth.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import {
  cookieHeader as cookiesOf,
  createAccount,
  OTHER_STAFF_EMAIL,
  PASSWORD,
  signIn,
  STAFF_EMAIL,
  totp,
} from "../../support/staff.ts";

/** Turns TOTP on for the signed-in user: password, then a first code; answers the new session cookie. */
async function enrol(app: TestApp, cookie: string, clientIp: string) {
  const enabled = await app.request("/api/auth/two-factor/enable", {
    json: { password: PASSWORD },
    headers: { cookie },
    clientIp,
  });
  expect(enabled.status).toBe(200);
  const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
  const secret = new URL(body.totpURI).searchParams.get("secret")!;
  const confirmed = await app.request("/api/auth/two-factor/verify-totp", {
    json: { code: totp(secret) },
    headers: { cookie },
    clientIp,
  });
  expect(confirmed.status).toBe(200);
  return { secret, backupCodes: body.backupCodes, cookie: cookiesOf(confirmed) || cookie };
}

describe.each(databaseKinds)("optional two-factor sign-in for staff (%s)", (kind) => {
  let app: TestApp;
  let secret: string;
  let backupCodes: string[];

  beforeAll(async () => {
    app = await createTestApp({ kind });
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

  it("lets the right password through to the code check on an address whose wrong-password limit is used up, while wrong passwords stay refused", async () => {
    const ip = "198.51.100.9";
    for (let attempt = 1; attempt <= ACCOUNT_LIMIT.limit; attempt++) {
      expect((await signIn(app, STAFF_EMAIL, `guess-${attempt}`, ip)).status, `attempt ${attempt}`).toBe(401);
    }
    expect((await signIn(app, STAFF_EMAIL, "one guess too many", ip)).status).toBe(429);
    const pending = await passwordStep(ip);
    expect((await signIn(app, STAFF_EMAIL, "still guessing", ip)).status).toBe(429);
    const right = await app.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp(secret) },
      headers: { cookie: pending },
      clientIp: ip,
    });
    expect(right.status).toBe(200);
    const list = await app.request("/api/blog-admin/list", {
      json: {},
      headers: { cookie: cookiesOf(right) },
    });
    expect(list.status).toBe(200);
  });
});

describe.each(databaseKinds)("staff required to use two-factor (STAFF_REQUIRE_TOTP=true), on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind, env: { STAFF_REQUIRE_TOTP: "true" } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("lets staff without two-factor reach only the enrolment, and the whole admin area once enrolled", async () => {
    const ip = "198.51.100.20";
    const { cookie } = await createAccount(app, STAFF_EMAIL);
    for (const [name, body] of [
      ["list", {}],
      ["create", { title: "T", slug: "t", content: "x", author: "x", status: "draft", published_at: null }],
    ] as const) {
      const refused = await app.request(`/api/blog-admin/${name}`, { json: body, headers: { cookie } });
      expect(refused.status, name).toBe(403);
      expect(await refused.json()).toEqual({
        error: "Forbidden",
        message: expect.stringMatching(/^Set up two-factor authentication/),
      });
    }
    const page = await app.request("/admin/blog", { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Staff accounts must use two-factor authentication.");
    expect(html).toContain("Set up two-factor");
    expect(html).not.toContain("New Post");
    const editor = await app.request("/admin/blog/new", { headers: { cookie }, redirect: "manual" });
    expect(editor.status).toBe(302);
    expect(editor.headers.get("location")).toBe("/admin/blog");

    const enrolled = await enrol(app, cookie, ip);
    const list = await app.request("/api/blog-admin/list", {
      json: {},
      headers: { cookie: enrolled.cookie },
    });
    expect(list.status).toBe(200);
    const unlocked = await (
      await app.request("/admin/blog", { headers: { cookie: enrolled.cookie } })
    ).text();
    expect(unlocked).toContain("New Post");
    expect(unlocked).not.toContain("Staff accounts must use two-factor authentication.");
  });
  it("refuses to turn two-factor off through better-auth's own endpoint, with a bearer token and the right password, as the console's form does", async () => {
    const ip = "198.51.100.21";
    const { cookie } = await createAccount(app, OTHER_STAFF_EMAIL);
    const { secret } = await enrol(app, cookie, ip);
    const twoFactorOn = async () => {
      const [row] = await app.services.db.select().from(user).where(eq(user.email, OTHER_STAFF_EMAIL));
      return row!.twoFactorEnabled;
    };
    // A script signs in as the README says: the password, then a code; the token comes back in set-auth-token.
    const pending = await signIn(app, OTHER_STAFF_EMAIL, PASSWORD, ip);
    expect(await pending.json()).toMatchObject({ twoFactorRedirect: true });
    const verified = await app.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp(secret) },
      headers: { cookie: cookiesOf(pending) },
      clientIp: ip,
    });
    expect(verified.status).toBe(200);
    const token = verified.headers.get("set-auth-token");
    expect(token).toBeTruthy();
    const disable = () =>
      app.request("/api/auth/two-factor/disable", {
        json: { password: PASSWORD },
        headers: { authorization: `Bearer ${token}` },
        clientIp: ip,
      });

    const refused = await disable();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ message: TWO_FACTOR_KEPT });
    expect(await twoFactorOn()).toBe(true);
    // The server's own call to the endpoint is refused the same way.
    await expect(
      app.services.auth.api.disableTwoFactor({
        body: { password: PASSWORD },
        headers: new Headers({ authorization: `Bearer ${token}` }),
      }),
    ).rejects.toThrow(TWO_FACTOR_KEPT);
    expect(await twoFactorOn()).toBe(true);

    // The token and the password were right: with the policy off, the same call turns it off.
    const config = app.services.config as { STAFF_REQUIRE_TOTP: boolean };
    config.STAFF_REQUIRE_TOTP = false;
    try {
      const taken = await disable();
      expect(taken.status).toBe(200);
      expect(await twoFactorOn()).toBe(false);
    } finally {
      config.STAFF_REQUIRE_TOTP = true;
    }
  });
});

describe("staff not required to use two-factor (STAFF_REQUIRE_TOTP=false)", () => {
  it("lets staff without two-factor use the admin area", async () => {
    const app = await createTestApp({ env: { STAFF_REQUIRE_TOTP: "false" } });
    try {
      const { cookie } = await createAccount(app, STAFF_EMAIL);
      const list = await app.request("/api/blog-admin/list", { json: {}, headers: { cookie } });
      expect(list.status).toBe(200);
      const html = await (await app.request("/admin/blog", { headers: { cookie } })).text();
      expect(html).toContain("New Post");
    } finally {
      await app.close();
    }
  });
});
