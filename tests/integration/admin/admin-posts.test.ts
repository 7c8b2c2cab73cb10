import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

interface Post {
  id: string;
  title: string;
  slug: string;
  content: string;
  author: string;
  status: string;
  published_at: string | null;
  updated_at: string;
  deleted_at: string | null;
  scheduled: boolean;
}

describe.each(databaseKinds)("the blog admin API's rules (%s)", (kind) => {
  let app: TestApp;
  let cookie: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  function call(name: string, json: unknown) {
    return app.request(`/api/blog-admin/${name}`, { json, headers: { cookie } });
  }
  async function create(fields: Partial<Post> & { slug: string }): Promise<Post> {
    const response = await call("create", { title: "A post", content: "Text", ...fields });
    expect(response.status).toBe(200);
    return ((await response.json()) as { post: Post }).post;
  }
  async function rowCount() {
    const [row] = await queryRows<{ n: number }>(
      app.services.db,
      sql`select count(*)::int as n from blog_posts`,
    );
    return row!.n;
  }

  it("creates a draft with the team as author when none is given, and no date", async () => {
    const post = await create({ slug: "plain-draft", author: "" });
    expect(post).toMatchObject({
      status: "draft",
      author: "NaijaLink Team",
      published_at: null,
      deleted_at: null,
    });
  });

  it("sets published_at to now when publishing without a date", async () => {
    const before = Date.now();
    const post = await create({ slug: "published-now", status: "published", published_at: null });
    expect(Date.parse(post.published_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(post.published_at!)).toBeLessThanOrEqual(Date.now() + 1000);

    const draft = await create({ slug: "toggled-later" });
    const response = await call("update", { id: draft.id, status: "published" });
    const { post: toggled } = (await response.json()) as { post: Post };
    expect(toggled.published_at).not.toBeNull();
  });

  it("keeps a given date and stores an empty date as null", async () => {
    const dated = await create({
      slug: "dated",
      status: "published",
      published_at: "2025-06-02T00:00:00.000Z",
    });
    expect(dated.published_at).toBe("2025-06-02T00:00:00.000Z");
    const response = await call("update", { id: dated.id, status: "draft", published_at: "" });
    expect(((await response.json()) as { post: Post }).post.published_at).toBeNull();
  });

  it("updates every editor field and moves updated_at forward", async () => {
    const post = await create({ slug: "to-edit" });
    await new Promise((resolve) => setTimeout(resolve, 15));
    const response = await call("update", {
      id: post.id,
      title: "Edited",
      slug: "edited",
      content: "# New",
      author: "Ada",
      status: "draft",
      published_at: null,
    });
    expect(response.status).toBe(200);
    const { post: edited } = (await response.json()) as { post: Post };
    expect(edited).toMatchObject({ title: "Edited", slug: "edited", content: "# New", author: "Ada" });
    expect(Date.parse(edited.updated_at)).toBeGreaterThan(Date.parse(post.updated_at));
  });

  it("answers a duplicate slug with 409 and a clear message, creating or updating", async () => {
    await create({ slug: "taken" });
    const other = await create({ slug: "free" });
    const count = await rowCount();
    const duplicate = await call("create", { title: "Again", slug: "taken", content: "" });
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as { message: string }).message).toContain('"taken" already exists');
    const renamed = await call("update", { id: other.id, slug: "taken" });
    expect(renamed.status).toBe(409);
    expect(await rowCount()).toBe(count);
  });

  it("rejects an invalid status, a missing id and a malformed body with 400", async () => {
    const post = await create({ slug: "validated" });
    const cases: Array<[string, unknown]> = [
      ["update", { id: post.id, status: "archived" }],
      ["create", { title: "x", slug: "x-1", status: "live" }],
      ["update", { status: "published" }],
      ["delete", { restore: true }],
      ["update", { id: "not-a-uuid", status: "draft" }],
      ["create", { title: "x", slug: "has spaces/and slashes" }],
      ["create", { title: "x", slug: "bad-date", published_at: "yesterday" }],
    ];
    for (const [name, body] of cases) {
      const response = await call(name, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "Invalid request", message: expect.any(String) });
    }
    const notJson = await app.request("/api/blog-admin/create", {
      method: "POST",
      body: "{oops",
      headers: { cookie, "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
  });

  it("marks a published post dated in the future as scheduled, by the server's clock", async () => {
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const earlier = new Date(Date.now() - 86_400_000).toISOString();
    const scheduled = await create({ slug: "scheduled-later", status: "published", published_at: later });
    const draft = await create({ slug: "draft-later", status: "draft", published_at: later });
    const live = await create({ slug: "published-earlier", status: "published", published_at: earlier });
    expect([scheduled.scheduled, draft.scheduled, live.scheduled]).toEqual([true, false, false]);
    const listed = (await (await call("list", {})).json()) as { posts: Post[] };
    const bySlug = Object.fromEntries(listed.posts.map((post) => [post.slug, post.scheduled]));
    expect(bySlug).toMatchObject({
      "scheduled-later": true,
      "draft-later": false,
      "published-earlier": false,
    });
    // Unpublishing and publishing again without a date makes it live now.
    await call("update", { id: scheduled.id, status: "draft" });
    const republished = await call("update", { id: scheduled.id, status: "published", published_at: null });
    expect(((await republished.json()) as { post: Post }).post.scheduled).toBe(false);
  });

  it("answers an unknown post with 404", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    expect((await call("update", { id, status: "published" })).status).toBe(404);
    expect((await call("delete", { id, restore: false })).status).toBe(404);
  });

  it("soft-deletes, refuses to publish a deleted post, and restores", async () => {
    const post = await create({ slug: "soft" });
    const deleted = ((await (await call("delete", { id: post.id, restore: false })).json()) as { post: Post })
      .post;
    expect(deleted.deleted_at).not.toBeNull();
    expect(deleted.status).toBe("draft");

    const publish = await call("update", { id: post.id, status: "published" });
    expect(publish.status).toBe(409);
    const [row] = await queryRows<{ status: string; deleted_at: Date | null }>(
      app.services.db,
      sql`select status, deleted_at from blog_posts where id = ${post.id}`,
    );
    expect(row!.status).toBe("draft");

    const restored = ((await (await call("delete", { id: post.id, restore: true })).json()) as { post: Post })
      .post;
    expect(restored.deleted_at).toBeNull();
    expect((await call("update", { id: post.id, status: "published" })).status).toBe(200);
  });

  it("answers GET on a write endpoint with 405", async () => {
    const response = await app.request("/api/blog-admin/create", { headers: { cookie } });
    expect(response.status).toBe(405);
  });
});
