// Issue 25, decision 089: the app runs as a role that does not own the staff audit log, so it can
// neither alter nor drop it (nor disable its append-only trigger), nor update or delete its rows;
// the owner role migrates (DATABASE_MIGRATION_URL). PostgreSQL only: PGlite has a single user.
import crypto from "node:crypto";
import pg from "pg";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { currentRole } from "#server/db/roles.ts";
import { staffAuditLog } from "#server/db/schema/index.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { buy } from "../../support/account.ts";
import { describeOnPostgres } from "../../support/database.ts";

const serverUrl = process.env.TEST_DATABASE_URL;

describeOnPostgres("database roles on PostgreSQL", () => {
  const suffix = crypto.randomBytes(4).toString("hex");
  const owner = `naijalink_owner_${suffix}`;
  const appRole = `naijalink_app_${suffix}`;
  const database = `naijalink_roles_${suffix}`;
  const urlAs = (role: string) => {
    const url = new URL(serverUrl!);
    url.username = role;
    url.password = "";
    url.pathname = `/${database}`;
    return url.toString();
  };
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  let app: TestApp;

  beforeAll(async () => {
    await admin(`create role ${owner} login`);
    await admin(`create role ${appRole} login`);
    await admin(`create database ${database} owner ${owner}`);
    app = await createTestApp({
      databaseFromConfig: true,
      env: { DATABASE_URL: urlAs(appRole), DATABASE_MIGRATION_URL: urlAs(owner) },
    });
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await admin(`drop database if exists ${database} with (force)`);
    await admin(`drop role if exists ${appRole}`);
    await admin(`drop role if exists ${owner}`);
  });

  it("runs the store as the app's role: a purchase works and staff actions are logged", async () => {
    expect(await currentRole(app.services.db)).toBe(appRole);
    await buy(app, "basic-monthly", "roles-buyer@example.com");
    await recordStaffAction(
      app.services.db,
      { id: "staff-1", email: "boss@naijalink.example" },
      {
        action: "test.roles",
        targetType: "test",
        targetId: "1",
        reason: "roles",
      },
    );
    expect(await app.services.db.select().from(staffAuditLog)).toHaveLength(1);
    expect(app.log.text).not.toContain("could alter it");
  });

  it("cannot alter, drop, truncate, update or delete the audit log, nor disable its trigger", async () => {
    for (const statement of [
      sql`alter table staff_audit_log disable trigger staff_audit_log_append_only`,
      sql`alter table staff_audit_log drop column reason`,
      sql`drop table staff_audit_log`,
      sql`truncate staff_audit_log`,
      sql`update staff_audit_log set reason = 'rewritten'`,
      sql`delete from staff_audit_log`,
    ]) {
      await expect(app.services.db.execute(statement)).rejects.toSatisfy((error: unknown) =>
        /permission denied|must be owner/.test(String((error as { cause?: unknown }).cause ?? error)),
      );
    }
    const rows = await app.services.db.select().from(staffAuditLog);
    expect(rows.map((row) => row.reason)).toEqual(["roles"]);
  });

  it("warns at start when the app's own role could alter the audit log (one role for both)", async () => {
    const single = await createTestApp({ databaseFromConfig: true, env: { DATABASE_URL: urlAs(owner) } });
    try {
      expect(single.log.text).toContain("DATABASE_MIGRATION_URL");
    } finally {
      await single.close();
    }
  });
});
