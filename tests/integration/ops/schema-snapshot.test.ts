// `npm run db:generate` on an unchanged schema writes nothing (decision 127): drizzle-kit's newest
// snapshot (server/db/migrations/meta/) says what server/db/schema/ says, and the schema says what
// the migrations build. docs/database.md, "Making a migration", says how both stay so.
import { PGlite } from "@electric-sql/pglite";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { afterAll, describe, expect, it } from "vitest";
import { PGLITE_EXTENSIONS, queryRows, wrapPglite, type DatabaseHandle } from "#server/db/client.ts";
import * as schema from "#server/db/schema/index.ts";
import { createTestDatabase } from "../../support/database.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const migrationsDir = path.join(root, "server/db/migrations");
const drizzleKit = path.join(root, "node_modules/.bin/drizzle-kit");

/** Every file under `dir` with a digest of its content. */
function contents(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(dir, file)] = createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    }
  return files;
}

/**
 * A copy of the migrations folder and a drizzle-kit configuration pointing at it (drizzle.config.ts's
 * settings). drizzle-kit reads the snapshots by paths relative to where it runs, so it runs there.
 */
function migrationsCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "naijalink-schema-snapshot-"));
  fs.cpSync(migrationsDir, path.join(dir, "migrations"), { recursive: true });
  // No import: the folder has no node_modules to resolve drizzle-kit from.
  const config = {
    dialect: "postgresql",
    schema: path.join(root, "server/db/schema/index.ts"),
    out: "./migrations",
    casing: "snake_case",
  };
  fs.writeFileSync(path.join(dir, "drizzle.config.ts"), `export default ${JSON.stringify(config)};\n`);
  return dir;
}

/**
 * `drizzle-kit generate` there. It asks questions only when it cannot tell a rename from a drop
 * and an add; with no terminal to answer it ends instead, and the timeout bounds a hang.
 */
function generate(dir: string, ...args: string[]) {
  const result = spawnSync(drizzleKit, ["generate", "--config", "drizzle.config.ts", ...args], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

describe("drizzle-kit's snapshot of the schema", () => {
  it("is current: db:generate on the unchanged schema writes no file", () => {
    const dir = migrationsCopy();
    copies.push(dir);
    const before = contents(dir);
    const { status, output } = generate(dir);
    expect(output).toContain("No schema changes, nothing to migrate");
    expect(status).toBe(0);
    expect(contents(dir)).toEqual(before);
  });

  it("is what drizzle-kit compares with: without the newest snapshot it writes the next migration", () => {
    const dir = migrationsCopy();
    copies.push(dir);
    const meta = path.join(dir, "migrations/meta");
    const newest = fs
      .readdirSync(meta)
      .filter((file) => file.endsWith("_snapshot.json"))
      .sort()
      .at(-1)!;
    const lastMigration = fs
      .readdirSync(migrationsDir)
      .filter((file) => file.endsWith(".sql"))
      .sort()
      .at(-1)!;
    expect(newest.slice(0, 4)).toBe(lastMigration.slice(0, 4));
    fs.rmSync(path.join(meta, newest));
    const before = contents(dir);
    const { output } = generate(dir, "--name", "probe");
    const next = `${String(Number(lastMigration.slice(0, 4)) + 1).padStart(4, "0")}_probe.sql`;
    expect(output).toContain(next);
    expect(Object.keys(contents(dir)).filter((file) => !(file in before))).toEqual(
      expect.arrayContaining([`migrations/${next}`]),
    );
  });

  it("db:snapshot --check finds the journal numbered as its files and the last migration's snapshot", () => {
    const result = spawnSync(
      path.join(root, "node_modules/.bin/tsx"),
      ["scripts/db-snapshot.ts", "--check"],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

/** What a database's tables are, as PostgreSQL itself prints them (triggers and functions aside). */
async function catalog(handle: DatabaseHandle) {
  const rows = (query: string) => queryRows<Record<string, unknown>>(handle.db, sql.raw(query));
  return {
    columns: await rows(
      `select table_name, column_name, data_type, udt_name, is_nullable, column_default
       from information_schema.columns where table_schema = 'public' and table_name <> 'app_migrations'
       order by table_name, column_name`,
    ),
    indexes: await rows(
      `select indexname, indexdef from pg_indexes
       where schemaname = 'public' and tablename <> 'app_migrations' order by indexname`,
    ),
    constraints: await rows(
      `select conrelid::regclass::text as "table", conname, pg_get_constraintdef(oid) as definition
       from pg_constraint where connamespace = 'public'::regnamespace
         and conrelid::regclass::text <> 'app_migrations'
       order by 1, 2`,
    ),
  };
}

describe("server/db/schema/", () => {
  const handles: DatabaseHandle[] = [];
  afterAll(async () => {
    for (const handle of handles) await handle.close();
  });

  it("builds the same tables, columns, defaults, indexes and checks as the migrations", async () => {
    const migrated = await createTestDatabase("pglite");
    handles.push(migrated);
    const empty = generateDrizzleJson({}, undefined, undefined, "snake_case");
    const statements = await generateMigration(
      empty,
      generateDrizzleJson(schema, empty.id, undefined, "snake_case"),
    );
    expect(statements.length).toBeGreaterThan(50);
    const fromSchema = wrapPglite(new PGlite({ extensions: PGLITE_EXTENSIONS }));
    handles.push(fromSchema);
    // Extensions are the migrations' to create (drizzle-kit does not track them): as 0081 does.
    await fromSchema.db.execute(sql`create extension if not exists pg_trgm`);
    for (const statement of statements) await fromSchema.db.execute(sql.raw(statement));

    const [built, declared] = [await catalog(migrated), await catalog(fromSchema)];
    expect(built.columns.length).toBeGreaterThan(200);
    expect(declared.columns).toEqual(built.columns);
    expect(declared.indexes).toEqual(built.indexes);
    expect(declared.constraints).toEqual(built.constraints);
  });
});
