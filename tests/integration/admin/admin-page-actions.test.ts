// Who may post the staff console's forms (issue 27): each page's route action guards as its
// /api/admin/* endpoint does. Anonymous callers, customers and editors are refused with nothing
// changed; bad input is a 4xx with a message, never a 500, with nothing changed either.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  blogPosts,
  devices,
  outboxMessages,
  subscriptions,
  user,
  vpnServers,
} from "#server/db/schema/index.ts";
import { createPost, createPostInput } from "#server/domain/blog/admin.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import {
  cookieHeader,
  createAccount,
  OTHER_STAFF_EMAIL,
  PASSWORD,
  STAFF_EMAIL,
  totp,
} from "../../support/staff.ts";

const REASON = "page action matrix";

describe("the staff console's route actions", () => {
  let app: TestApp;
  let admin: string;
  let editor: string;
  let customer: string;
  let subscriptionId: string;
  let deviceId: string;
  let serverId: string;
  const buyer = "page-actions-buyer@example.com";

  beforeAll(async () => {
    app = await createTestApp();
    admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    await buy(app, "pro-monthly", buyer);
    customer = await signedInCustomer(app, buyer);
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, buyer));
    subscriptionId = subscription!.id;
    const [device] = await app.services.db
      .select()
      .from(devices)
      .where(eq(devices.subscriptionId, subscriptionId));
    deviceId = device!.id;
    serverId = device!.vpnServerId!;
  }, 300_000);
  afterAll(() => app?.close());

  /** What a browser sends when the page's form is posted, with JavaScript or without. */
  const post = (path: string, fields: Record<string, string>, cookie = "") =>
    app.request(path, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "sec-fetch-site": "same-origin",
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  /** What every refused post must leave as it was. */
  async function state() {
    const [subscription] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, subscriptionId));
    const [server] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, serverId));
    const emails = await app.services.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.toAddress, buyer));
    return { status: subscription!.status, server: server!.status, emails: emails.length };
  }

  const page = () => `/admin/subscriptions/${subscriptionId}`;
  const operations = (): Array<{ path: string; fields: Record<string, string> }> => [
    { path: page(), fields: { intent: "refund", subscriptionId, reason: REASON } },
    { path: page(), fields: { intent: "resend-config", deviceId, reason: REASON } },
    { path: "/admin/servers", fields: { intent: "drain", serverId, reason: REASON } },
  ];

  it("refuses anonymous callers, customers and editors on every operations action, changing nothing", async () => {
    const before = await state();
    const callers = { anonymous: "", customer, editor };
    for (const [who, cookie] of Object.entries(callers)) {
      for (const { path, fields } of operations()) {
        const response = await post(path, fields, cookie);
        expect(response.status, `${who} ${fields.intent}`).toBeGreaterThanOrEqual(300);
        expect(response.status, `${who} ${fields.intent}`).toBeLessThan(500);
        if (who === "editor") expect(response.status).toBe(403);
      }
    }
    expect(await state()).toEqual(before);
  });

  it("answers bad input with a 4xx and its message, never a 500, changing nothing", async () => {
    const before = await state();
    const bad: Array<{ fields: Record<string, string>; message: RegExp }> = [
      { fields: { intent: "refund", subscriptionId, reason: "x" }, message: /reason/i },
      {
        fields: { intent: "refund", subscriptionId: "not-an-id", reason: REASON },
        message: /subscriptionId/,
      },
      { fields: { intent: "explode", subscriptionId, reason: REASON }, message: /does not offer/ },
      { fields: { intent: "extend", subscriptionId, days: "many", reason: REASON }, message: /days/ },
      { fields: { intent: "refund", subscriptionId, reason: REASON, extra: "1" }, message: /extra/ },
    ];
    for (const { fields, message } of bad) {
      const response = await post(page(), fields, admin);
      expect(response.status, JSON.stringify(fields)).toBe(400);
      expect(await response.text()).toMatch(message);
    }
    const unknownDevice = await post(
      page(),
      { intent: "revoke", deviceId: crypto.randomUUID(), reason: REASON },
      admin,
    );
    expect(unknownDevice.status).toBe(404);
    const crossSite = await app.request(page(), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "sec-fetch-site": "cross-site",
        cookie: admin,
      },
      body: new URLSearchParams({ intent: "refund", subscriptionId, reason: REASON }).toString(),
    });
    expect(crossSite.status).toBe(403);
    const login = await post("/admin/login", { intent: "sign-in", email: "not an address", password: "x" });
    expect(login.status).toBe(400);
    expect(await login.text()).toContain("Enter a valid e-mail address.");
    expect(await state()).toEqual(before);
  });

  it("lets an admin resend a config and refund through the page, as the JSON endpoints do", async () => {
    const before = await state();
    const resent = await post(page(), { intent: "resend-config", deviceId, reason: REASON }, admin);
    expect(resent.status).toBe(200);
    expect(await resent.text()).toContain("Config e-mail queued");
    expect((await state()).emails).toBe(before.emails + 1);
    const refunded = await post(page(), { intent: "refund", subscriptionId, reason: REASON }, admin);
    expect(refunded.status).toBe(200);
    expect((await state()).status).toBe("refunded");
    const again = await post(page(), { intent: "refund", subscriptionId, reason: REASON }, admin);
    expect(again.status).toBe(409);
  });

  describe("the blog list's actions", () => {
    const postState = async (id: string) => {
      const [row] = await app.services.db.select().from(blogPosts).where(eq(blogPosts.id, id));
      return { status: row!.status, deletedAt: row!.deletedAt };
    };

    it("refuses anonymous callers and customers, and bad or cross-site posts, changing nothing", async () => {
      const post_ = await createPost(
        app.services.db,
        createPostInput.parse({ title: "Matrix post", slug: "matrix-post" }),
      );
      const before = await postState(post_.id);
      const forms: Array<Record<string, string>> = [
        { intent: "publish", id: post_.id, status: "published" },
        { intent: "delete", id: post_.id },
      ];
      for (const [who, cookie] of Object.entries({ anonymous: "", customer })) {
        for (const fields of forms) {
          const response = await post("/admin/blog", fields, cookie);
          expect(response.status, `${who} ${fields.intent}`).toBeGreaterThanOrEqual(300);
          expect(response.status, `${who} ${fields.intent}`).toBeLessThan(500);
        }
      }
      const bad: Array<{ fields: Record<string, string>; status: number; message: RegExp }> = [
        { fields: { intent: "publish", id: post_.id, status: "live" }, status: 400, message: /status/ },
        { fields: { intent: "publish", id: "not-an-id", status: "draft" }, status: 400, message: /id/ },
        { fields: { intent: "explode", id: post_.id }, status: 400, message: /does not offer/ },
        {
          fields: { intent: "delete", id: crypto.randomUUID() },
          status: 404,
          message: /no post with this id/,
        },
      ];
      for (const { fields, status, message } of bad) {
        const response = await post("/admin/blog", fields, editor);
        expect(response.status, JSON.stringify(fields)).toBe(status);
        expect(await response.text()).toMatch(message);
      }
      const crossSite = await app.request("/admin/blog", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "cross-site",
          cookie: editor,
        },
        body: new URLSearchParams(forms[0]!).toString(),
      });
      expect(crossSite.status).toBe(403);
      expect(await postState(post_.id)).toEqual(before);
    });

    it("saves the editor's form for staff only: refused for anonymous callers and customers, bad input 4xx", async () => {
      const fields = {
        intent: "create",
        title: "Editor form post",
        slug: "editor-form-post",
        status: "draft",
      };
      for (const cookie of ["", customer]) {
        const response = await post("/admin/blog/new", fields, cookie);
        expect(response.status).toBeGreaterThanOrEqual(300);
        expect(response.status).toBeLessThan(500);
      }
      const bad = await post("/admin/blog/new", { ...fields, slug: "Not A Slug!" }, editor);
      expect(bad.status).toBe(400);
      expect(await bad.text()).toMatch(/slug/i);
      const none = await app.services.db.select().from(blogPosts).where(eq(blogPosts.title, fields.title));
      expect(none).toEqual([]);
      const created = await post("/admin/blog/new", fields, editor);
      expect(created.status).toBe(302);
      expect(created.headers.get("location")).toBe("/admin/blog");
      const [row] = await app.services.db.select().from(blogPosts).where(eq(blogPosts.title, fields.title));
      expect(row!.slug).toBe("editor-form-post");
    });

    it("lets an editor publish, delete and restore a post through the page", async () => {
      const post_ = await createPost(
        app.services.db,
        createPostInput.parse({ title: "Editor post", slug: "editor-post" }),
      );
      const published = await post(
        "/admin/blog",
        { intent: "publish", id: post_.id, status: "published" },
        editor,
      );
      expect(published.status).toBe(200);
      expect(await published.text()).toContain("Post published");
      expect((await postState(post_.id)).status).toBe("published");
      const deleted = await post("/admin/blog", { intent: "delete", id: post_.id }, editor);
      expect(deleted.status).toBe(200);
      expect((await postState(post_.id)).deletedAt).not.toBeNull();
      const restored = await post("/admin/blog", { intent: "delete", id: post_.id, restore: "true" }, editor);
      expect(await restored.text()).toContain("Post restored");
      expect((await postState(post_.id)).deletedAt).toBeNull();
    });
  });

  it("signs staff in through the sign-in page's form, setting the session cookie", async () => {
    const response = await post("/admin/login", {
      intent: "sign-in",
      email: STAFF_EMAIL,
      password: "correct horse battery staple",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/admin/blog");
    expect(response.headers.getSetCookie().some((cookie) => cookie.includes("session_token="))).toBe(true);
  });

  describe("the two-factor enrolment's actions", () => {
    const ENROLLING = "enrolling-editor@naijalink.example";
    const enabledFor = async (email: string) => {
      const [row] = await app.services.db.select().from(user).where(eq(user.email, email));
      return row!.twoFactorEnabled;
    };
    const secretIn = (html: string) => /data-testid="totp-secret">([A-Z2-7]+)</.exec(html)?.[1];
    const hidden = (html: string, name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&") ?? "";

    it("refuses anonymous callers and customers; staff who must enrol first turn it on and confirm a code", async () => {
      const forms: Array<Record<string, string>> = [
        { intent: "two-factor-enable", password: PASSWORD },
        {
          intent: "two-factor-verify",
          code: "123456",
          totpURI: "otpauth://totp/x?secret=A",
          backupCodes: "",
        },
        { intent: "two-factor-disable", password: PASSWORD },
      ];
      for (const [who, cookie] of Object.entries({ anonymous: "", customer })) {
        for (const fields of forms) {
          const response = await post("/admin/blog", fields, cookie);
          // The action refuses (401/403); the page's loader then sends the browser elsewhere.
          expect(response.status, `${who} ${fields.intent}`).toBeGreaterThanOrEqual(300);
          expect(response.status, `${who} ${fields.intent}`).toBeLessThan(500);
          expect(await response.text(), `${who} ${fields.intent}`).not.toContain("totp-secret");
        }
      }

      (app.services.config.STAFF_EDITORS as string[]).push(ENROLLING);
      const config = app.services.config as { STAFF_REQUIRE_TOTP: boolean };
      const before = config.STAFF_REQUIRE_TOTP;
      config.STAFF_REQUIRE_TOTP = true;
      try {
        const { cookie } = await createAccount(app, ENROLLING);
        const locked = await app.request("/admin/blog", { headers: { cookie } });
        expect(await locked.text()).toContain("Staff accounts must use two-factor authentication.");
        const blocked = await post("/admin/blog", { intent: "delete", id: crypto.randomUUID() }, cookie);
        expect(blocked.status).toBe(403);

        const wrongPassword = await post(
          "/admin/blog",
          { intent: "two-factor-enable", password: "not the password" },
          cookie,
        );
        expect(wrongPassword.status).toBe(400);
        expect(await wrongPassword.text()).toMatch(/invalid password/i);

        const enabled = await post(
          "/admin/blog",
          { intent: "two-factor-enable", password: PASSWORD },
          cookie,
        );
        expect(enabled.status).toBe(200);
        expect(enabled.headers.get("cache-control")).toContain("no-store");
        const page = await enabled.text();
        const secret = secretIn(page)!;
        expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
        expect(page).toContain("QR code for your authenticator app");
        const backupCodes = hidden(page, "backupCodes");
        expect(backupCodes.split(",").length).toBeGreaterThanOrEqual(8);
        const enrolment = { totpURI: hidden(page, "totpURI"), backupCodes };
        expect(enrolment.totpURI).toContain(`secret=${secret}`);

        // A refused code (five digits never match) shows the same enrolment again.
        const wrongCode = await post(
          "/admin/blog",
          { intent: "two-factor-verify", code: "12345", ...enrolment },
          cookie,
        );
        expect(wrongCode.status).toBeGreaterThanOrEqual(400);
        expect(wrongCode.status).toBeLessThan(500);
        expect(secretIn(await wrongCode.text())).toBe(secret);
        expect(await enabledFor(ENROLLING)).toBe(false);

        // Posted by the browser itself (no JavaScript): a fresh page with the new session.
        const confirmed = await app.request("/admin/blog", {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "sec-fetch-site": "same-origin",
            "sec-fetch-mode": "navigate",
            cookie,
          },
          body: new URLSearchParams({
            intent: "two-factor-verify",
            code: totp(secret),
            ...enrolment,
          }).toString(),
          redirect: "manual",
        });
        expect(confirmed.status).toBe(302);
        expect(confirmed.headers.get("location")).toBe("/admin/blog");
        expect(confirmed.headers.getSetCookie().join("\n")).not.toContain(secret);
        expect(await enabledFor(ENROLLING)).toBe(true);
        const unlocked = await app.request("/admin/blog", { headers: { cookie: cookieHeader(confirmed) } });
        expect(unlocked.status).toBe(200);
        expect(await unlocked.text()).not.toContain("Staff accounts must use two-factor authentication.");

        const turnOff = await post(
          "/admin/blog",
          { intent: "two-factor-disable", password: PASSWORD },
          cookieHeader(confirmed),
        );
        expect(turnOff.status).toBe(403);
        expect(await enabledFor(ENROLLING)).toBe(true);
      } finally {
        config.STAFF_REQUIRE_TOTP = before;
      }
    });
  });
});
