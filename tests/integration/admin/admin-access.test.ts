import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { session } from "#server/db/schema/auth.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import {
  cookieHeader,
  createAccount,
  OTHER_STAFF_EMAIL,
  PASSWORD,
  signIn,
  STAFF_EMAIL,
} from "../../support/staff.ts";

type Caller = { headers: Record<string, string> };

describe.each(databaseKinds)("staff access to the blog admin API (%s)", (kind) => {
  let app: TestApp;
  let seededId: string;
  const as: Record<"anonymous" | "nonStaff" | "unverifiedStaff" | "staff" | "staffBearer", Caller> = {
    anonymous: { headers: {} },
    nonStaff: { headers: {} },
    unverifiedStaff: { headers: {} },
    staff: { headers: {} },
    staffBearer: { headers: {} },
  };

  async function snapshot() {
    return queryRows(app.services.db, sql`select * from blog_posts order by id`);
  }

  function call(name: string, caller: Caller, json: unknown) {
    return app.request(`/api/blog-admin/${name}`, { json, headers: caller.headers });
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    const staff = await createAccount(app, STAFF_EMAIL);
    as.staff.headers = { cookie: staff.cookie };
    as.staffBearer.headers = { authorization: `Bearer ${staff.bearer}` };
    const reader = await createAccount(app, "reader@example.com");
    as.nonStaff.headers = { cookie: reader.cookie };
    // A staff address whose confirmation no longer holds (e.g. reset by an operator):
    // it still has a live session, and the server must not accept it.
    const editor = await createAccount(app, OTHER_STAFF_EMAIL);
    await app.services.db.execute(
      sql`update "user" set email_verified = false where email = ${OTHER_STAFF_EMAIL}`,
    );
    as.unverifiedStaff.headers = { cookie: editor.cookie };

    const created = await call("create", as.staff, {
      title: "Seeded post",
      slug: "seeded-post",
      content: "Hello",
      author: "NaijaLink Team",
      status: "draft",
      published_at: null,
    });
    expect(created.status).toBe(200);
    seededId = ((await created.json()) as { post: { id: string } }).post.id;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  const calls = () =>
    [
      ["list", {}],
      [
        "create",
        {
          title: "Sneaky",
          slug: "sneaky",
          content: "x",
          author: "x",
          status: "published",
          published_at: null,
        },
      ],
      ["update", { id: seededId, status: "published" }],
      ["delete", { id: seededId, restore: false }],
    ] as const;

  it.each([
    ["anonymous", 401],
    ["nonStaff", 403],
    ["unverifiedStaff", 403],
  ] as const)("refuses every call from %s with %i and changes no row", async (who, status) => {
    const before = await snapshot();
    for (const [name, body] of calls()) {
      const response = await call(name, as[who], body);
      expect(response.status, `${name} as ${who}`).toBe(status);
      const payload = (await response.json()) as { error: string; message: string };
      expect(payload.error).toBe(status === 401 ? "Unauthorized" : "Forbidden");
      expect(payload.message).toEqual(expect.any(String));
    }
    expect(await snapshot()).toEqual(before);
  });

  it("checks permission before validating the body", async () => {
    const response = await call("update", as.anonymous, { status: "nonsense" });
    expect(response.status).toBe(401);
  });

  it.each(["staff", "staffBearer"] as const)("answers every call from %s with 200", async (who) => {
    const list = await call("list", as[who], {});
    expect(list.status).toBe(200);
    const { posts } = (await list.json()) as { posts: Array<{ id: string }> };
    expect(posts.map((post) => post.id)).toContain(seededId);

    const created = await call("create", as[who], {
      title: `Made by ${who}`,
      slug: `made-by-${who.toLowerCase()}`,
      content: "Body",
      author: "NaijaLink Team",
      status: "draft",
      published_at: null,
    });
    expect(created.status).toBe(200);
    const { post } = (await created.json()) as { post: { id: string; status: string } };
    expect(post.status).toBe("draft");

    const updated = await call("update", as[who], { id: post.id, status: "published" });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { post: { status: string } }).post.status).toBe("published");

    const deleted = await call("delete", as[who], { id: post.id, restore: false });
    expect(deleted.status).toBe(200);
    expect(
      ((await deleted.json()) as { post: { deleted_at: string | null } }).post.deleted_at,
    ).not.toBeNull();
  });

  it("lists drafts, published and deleted posts alike", async () => {
    const response = await call("list", as.staff, {});
    const { posts } = (await response.json()) as {
      posts: Array<{ status: string; deleted_at: string | null }>;
    };
    expect(posts.some((post) => post.status === "draft" && !post.deleted_at)).toBe(true);
    expect(posts.some((post) => post.deleted_at)).toBe(true);
  });

  it("serves the admin pages only to staff", async () => {
    const page = (path: string, who: keyof typeof as) =>
      app.request(path, { headers: as[who].headers, redirect: "manual" });

    const anonymousList = await page("/admin/blog", "anonymous");
    expect(anonymousList.status).toBe(302);
    expect(anonymousList.headers.get("location")).toBe("/admin/login");
    const staffList = await page("/admin/blog", "staff");
    expect(staffList.status).toBe(200);
    expect(await staffList.text()).toContain("Blog Admin");
    const deniedList = await page("/admin/blog", "nonStaff");
    expect(deniedList.status).toBe(302);
    expect(deniedList.headers.get("location")).toBe("/");
    expect(await deniedList.text()).not.toContain("New Post");
    // The reason travels in a flash cookie that the next page shows once (docs/product.md §9.2).
    const flash = deniedList.headers.get("set-cookie") ?? "";
    expect(flash).toMatch(/^flash=[^;]+; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax$/);
    const home = await app.request("/", { headers: { cookie: flash.split(";")[0]! } });
    expect(home.headers.get("set-cookie")).toMatch(/^flash=; Path=\/; Max-Age=0/);
    const alert = /<div role="alert"[^>]*>(.*?)<\/div>/.exec(await home.text())?.[1] ?? "";
    expect(alert.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'")).toMatch(
      /Access Denied\s+You don't have permission to access this page\./,
    );

    for (const who of ["anonymous", "nonStaff", "unverifiedStaff"] as const) {
      for (const path of ["/admin/blog/new", `/admin/blog/edit/${seededId}`]) {
        const response = await page(path, who);
        expect(response.status, `${path} as ${who}`).toBe(302);
        expect(response.headers.get("location")).toBe("/");
        // Silently: no message for the next page.
        expect(response.headers.get("set-cookie") ?? "").not.toContain("flash=");
      }
    }
    const editor = await page(`/admin/blog/edit/${seededId}`, "staff");
    expect(editor.status).toBe(200);
    const html = await editor.text();
    expect(html).toContain("Edit Post");
    expect(html).toContain("seeded-post");
    const missing = await page("/admin/blog/edit/00000000-0000-4000-8000-000000000000", "staff");
    expect(missing.status).toBe(404);
  });
});

describe("the session token stays in the HttpOnly cookie for browsers", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await createAccount(app, STAFF_EMAIL);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** What a browser adds to a page script's request, and a script cannot take away. */
  const fromPageScript = () => ({
    origin: app.config.PUBLIC_URL,
    "sec-fetch-site": "same-origin",
    "sec-fetch-mode": "cors",
  });

  async function sessionTokens() {
    return (await app.services.db.select({ token: session.token }).from(session)).map((row) => row.token);
  }

  it("answers a browser's sign-in with the cookie alone: no token in its headers or body, nor in get-session", async () => {
    const response = await app.request("/api/auth/sign-in/email", {
      json: { email: STAFF_EMAIL, password: PASSWORD },
      headers: fromPageScript(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-auth-token")).toBeNull();
    expect(response.headers.get("access-control-expose-headers") ?? "").not.toMatch(/set-auth-token/i);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).not.toHaveProperty("token");
    expect(body.user).toMatchObject({ email: STAFF_EMAIL });
    const cookie = cookieHeader(response);
    expect(cookie).toContain("session_token=");
    const tokens = await sessionTokens();
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(text).not.toContain(token);

    const current = await app.request("/api/auth/get-session", { headers: { ...fromPageScript(), cookie } });
    expect(current.status).toBe(200);
    const currentText = await current.text();
    expect(currentText).toContain(STAFF_EMAIL);
    for (const token of tokens) expect(currentText).not.toContain(token);
    expect(current.headers.get("set-auth-token")).toBeNull();

    // The cookie is what the admin pages' calls ride on.
    const list = await app.request("/api/blog-admin/list", {
      json: {},
      headers: { ...fromPageScript(), cookie },
    });
    expect(list.status).toBe(200);
  });

  it("gives a client that is not a browser the token, which works as Authorization: Bearer on an admin call", async () => {
    const response = await signIn(app, STAFF_EMAIL);
    expect(response.status).toBe(200);
    const headerToken = response.headers.get("set-auth-token");
    const { token: bodyToken } = (await response.json()) as { token: string };
    expect(headerToken).toBeTruthy();
    expect(bodyToken).toBeTruthy();
    for (const token of [headerToken, bodyToken]) {
      const list = await app.request("/api/blog-admin/list", {
        json: {},
        headers: { authorization: `Bearer ${token}` },
      });
      expect(list.status).toBe(200);
    }
  });
});
