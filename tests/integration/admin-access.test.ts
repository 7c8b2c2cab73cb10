import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { databaseKinds } from "../support/database.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "./admin-helpers.ts";

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
    // The reason travels in a flash cookie that the next page shows once (spec §6).
    const flash = deniedList.headers.get("set-cookie") ?? "";
    expect(flash).toMatch(/^flash=[^;]+; Path=\/; Max-Age=\d+; SameSite=Lax$/);
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
