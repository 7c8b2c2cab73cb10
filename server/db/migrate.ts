import { sql } from "drizzle-orm";
import { queryRows, type Database } from "./client.ts";

// Bundled into the build, so the server needs no migrations folder at run time.
const migrationFiles = import.meta.glob<string>("./migrations/*.sql", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** Held by whoever migrates or grants (roles.ts): concurrent starters take turns. */
export const MIGRATION_LOCK_ID = 7_241_180;

export function listMigrations(): Array<{ name: string; statements: string[] }> {
  return Object.entries(migrationFiles)
    .map(([file, text]) => ({
      name: file.replace(/^.*\//, "").replace(/\.sql$/, ""),
      statements: text
        .split("--> statement-breakpoint")
        .map((statement) => statement.trim())
        .filter(Boolean),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Applies pending migrations in one transaction; concurrent starters wait on an advisory lock. */
export async function migrate(db: Database): Promise<string[]> {
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(
      sql`create table if not exists app_migrations (name text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set(
      (await queryRows<{ name: string }>(tx, sql`select name from app_migrations`)).map((row) => row.name),
    );
    for (const migration of listMigrations()) {
      if (done.has(migration.name)) continue;
      for (const statement of migration.statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into app_migrations (name) values (${migration.name})`);
      applied.push(migration.name);
    }
  });
  return applied;
}
