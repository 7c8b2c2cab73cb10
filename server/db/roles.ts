// Two database roles (issue 25): the owner, which runs the migrations and owns every
// table, and the app's role, which reads and writes rows but cannot ALTER, DROP or TRUNCATE a
// table, nor UPDATE or DELETE the staff audit log: a compromised app cannot disable the log's
// append-only trigger or rewrite its history. PGlite has one user (the owner); there the trigger
// and DATA_DIR's file modes are what guard the log.
import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "./client.ts";
import { MIGRATION_LOCK_ID } from "./migrate.ts";

/** The role an executor's connection runs as. */
export async function currentRole(executor: Executor): Promise<string> {
  const [row] = await queryRows<{ role: string }>(executor, sql`select current_user as role`);
  return row!.role;
}

/**
 * Run by the owner after migrating: the app's role may use every table's rows and sequences, and
 * only read and append to the audit log. Repeated at every start, so a table a migration added
 * is covered.
 */
export async function grantAppRole(owner: Executor, appRole: string): Promise<void> {
  if (appRole === (await currentRole(owner))) return;
  const role = sql.identifier(appRole);
  await owner.transaction(async (tx) => {
    // Two processes granting at once would fail ("tuple concurrently updated"): one at a time.
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`grant usage on schema public to ${role}`);
    await tx.execute(sql`grant select, insert, update, delete on all tables in schema public to ${role}`);
    await tx.execute(sql`grant usage, select on all sequences in schema public to ${role}`);
    await tx.execute(sql`revoke update, delete, truncate on staff_audit_log from ${role}`);
  });
}

/** Whether the connection's role could alter or drop the audit log: it owns it, or is a superuser. */
export async function canAlterAuditLog(executor: Executor): Promise<boolean> {
  const [row] = await queryRows<{ alterable: boolean }>(
    executor,
    sql`select coalesce((select rolsuper from pg_roles where rolname = current_user), false)
          or pg_has_role(current_user, c.relowner, 'USAGE') as alterable
        from pg_class c where c.relname = 'staff_audit_log' and c.relnamespace = 'public'::regnamespace`,
  );
  return Boolean(row?.alterable);
}
