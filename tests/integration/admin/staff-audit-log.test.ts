// The staff audit log (issue 15): every blog action is recorded with who and what, the log is
// append-only in the database itself, and admins read it filtered and paged.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "#server/db/client.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

interface Entry {
  id: number;
  staffEmail: string;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
}

describe.each(databaseKinds)("staff audit log (%s)", (kind) => {
  let app: TestApp;
  let admin: string;
  let editor: string;
  let postId: string;

  const call = (cookie: string, path: string, json: unknown) =>
    app.request(path, { json, headers: { cookie } });

  async function auditLog(query: Record<string, unknown> = {}) {
    const response = await call(admin, "/api/admin/audit-log", query);
    expect(response.status).toBe(200);
    return (await response.json()) as { entries: Entry[]; nextBefore: number | null };
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    const created = await call(editor, "/api/blog-admin/create", {
      title: "Audited post",
      slug: "audited-post",
      content: "Hello",
      author: "NaijaLink Team",
      status: "draft",
      published_at: null,
    });
    expect(created.status).toBe(200);
    postId = ((await created.json()) as { post: { id: string } }).post.id;
    expect((await call(editor, "/api/blog-admin/update", { id: postId, status: "published" })).status).toBe(
      200,
    );
    expect(
      (await call(admin, "/api/blog-admin/update", { id: postId, title: "Audited post, edited" })).status,
    ).toBe(200);
    expect((await call(admin, "/api/blog-admin/delete", { id: postId })).status).toBe(200);
  });

  afterAll(async () => {
    await app.close();
  });

  it("records every blog action with the staff member who made it, newest first", async () => {
    const { entries } = await auditLog({ targetId: postId });
    expect(entries.map((entry) => [entry.action, entry.staffEmail])).toEqual([
      ["blog.delete", STAFF_EMAIL],
      ["blog.update", STAFF_EMAIL],
      ["blog.publish", OTHER_STAFF_EMAIL],
      ["blog.create", OTHER_STAFF_EMAIL],
    ]);
    expect(entries[1]!.details).toMatchObject({ title: "Audited post, edited" });
  });

  it("records nothing for a refused or failed action", async () => {
    const before = (await auditLog()).entries.length;
    expect(
      (await call(editor, "/api/blog-admin/update", { id: crypto.randomUUID(), status: "draft" })).status,
    ).toBe(404);
    expect((await call("", "/api/blog-admin/delete", { id: postId })).status).toBe(401);
    expect((await auditLog()).entries.length).toBe(before);
  });

  it("filters by action and staff member, and pages by the last id seen", async () => {
    expect((await auditLog({ action: "blog.create" })).entries.map((entry) => entry.targetId)).toEqual([
      postId,
    ]);
    expect((await auditLog({ staffEmail: "ADMIN@naijalink.example" })).entries).toHaveLength(2);
    const first = await auditLog({ limit: 3 });
    expect(first.entries).toHaveLength(3);
    const rest = await auditLog({ limit: 3, before: first.nextBefore });
    expect(rest.entries.map((entry) => entry.action)).toEqual(["blog.create"]);
    expect(rest.nextBefore).toBeNull();
    const bad = await call(admin, "/api/admin/audit-log", { limit: 1000 });
    expect(bad.status).toBe(400);
  });

  it("lists by time, then id, and pages through entries of one instant without skipping any", async () => {
    const staff = { id: "staff-clock", email: STAFF_EMAIL };
    const targetId = crypto.randomUUID();
    const record = (action: string, at: string) =>
      recordStaffAction(
        app.services.db,
        staff,
        { action, targetType: "test", targetId, reason: "ordering" },
        new Date(at),
      );
    // Written out of time order: ids alone would put "written-last" first.
    await record("later-first", "2030-01-02T00:00:00Z");
    await record("same-instant-second", "2030-01-02T00:00:00Z");
    await record("written-last", "2030-01-01T00:00:00Z");
    const all = await auditLog({ targetId });
    expect(all.entries.map((entry) => entry.action)).toEqual([
      "same-instant-second",
      "later-first",
      "written-last",
    ]);
    const paged: string[] = [];
    let before: number | null | undefined;
    do {
      const page = await auditLog({ targetId, limit: 1, ...(before ? { before } : {}) });
      paged.push(...page.entries.map((entry) => entry.action));
      before = page.nextBefore;
    } while (before);
    expect(paged).toEqual(all.entries.map((entry) => entry.action));
  });

  it("cannot be changed or emptied, even by a direct statement", async () => {
    await expect(
      app.services.db.execute(sql`update staff_audit_log set reason = 'rewritten'`),
    ).rejects.toThrow();
    await expect(app.services.db.execute(sql`delete from staff_audit_log`)).rejects.toThrow();
    await expect(app.services.db.execute(sql`truncate staff_audit_log`)).rejects.toThrow();
    const [row] = await queryRows<{ count: number }>(
      app.services.db,
      sql`select count(*)::int as count from staff_audit_log where reason is null`,
    );
    expect(row!.count).toBe(4);
  });

  it("shows the log to admins on /admin/audit and refuses editors", async () => {
    const page = await app.request("/admin/audit?action=blog.publish", { headers: { cookie: admin } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("blog.publish");
    expect(html).not.toContain("blog.create");
    expect((await app.request("/admin/audit", { headers: { cookie: editor } })).status).toBe(403);
    expect((await call(editor, "/api/admin/audit-log", {})).status).toBe(403);
  });
});
