// Who may post the staff console's forms (issue 27): each page's route action guards as its
// /api/admin/* endpoint does. Anonymous callers, customers and editors are refused with nothing
// changed; bad input is a 4xx with a message, never a 500, with nothing changed either.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogPosts, devices, outboxMessages, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { createPost, createPostInput } from "#server/domain/blog/admin.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

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
});
