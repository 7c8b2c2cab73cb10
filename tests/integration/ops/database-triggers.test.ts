// docs/database.md lists every trigger the migrations leave in the database, why it must be
// there, and the test that covers it (issue 27). This reads the list, the migrations and a
// migrated database, and fails when any of the three disagree.
import fs from "node:fs/promises";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const migrationsDir = path.join(root, "server/db/migrations");

interface ListedTrigger {
  trigger: string;
  fn: string;
  coveredBy: string;
}

async function listedTriggers(): Promise<ListedTrigger[]> {
  const text = await fs.readFile(path.join(root, "docs/database.md"), "utf8");
  return text
    .split("\n")
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const cells = line.split(" | ").map((cell) => cell.trim());
      const name = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? "";
      return {
        trigger: name(cells[0]!),
        fn: name(cells[1]!),
        coveredBy: cells.at(-1)!.replace(/\|$/, "").trim(),
      };
    });
}

/** The triggers the migrations leave, in order: created, and not dropped afterwards. */
async function migratedTriggers(): Promise<Map<string, string>> {
  const files = (await fs.readdir(migrationsDir)).filter((file) => file.endsWith(".sql")).sort();
  const triggers = new Map<string, string>();
  for (const file of files) {
    const text = await fs.readFile(path.join(migrationsDir, file), "utf8");
    const statements = text.matchAll(
      /(CREATE|DROP) TRIGGER\s+"?(\w+)"?[\s\S]*?(?:EXECUTE (?:FUNCTION|PROCEDURE)\s+"?(\w+)"?|;)/gi,
    );
    for (const [, verb, name, fn] of statements) {
      if (verb!.toUpperCase() === "DROP") triggers.delete(name!);
      else triggers.set(name!, fn!);
    }
  }
  return triggers;
}

describe("the database's triggers", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ backgroundJobs: false });
  });
  afterAll(() => app?.close());

  it("are exactly the ones docs/database.md lists, each with its function", async () => {
    const listed = await listedTriggers();
    const migrated = await migratedTriggers();
    expect(listed.map((row) => row.trigger).sort()).toEqual([...migrated.keys()].sort());
    for (const row of listed) expect(migrated.get(row.trigger), row.trigger).toBe(row.fn);
  });

  it("are what a migrated database holds", async () => {
    const result: unknown = await app.services.db.execute(
      sql`SELECT tgname AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`,
    );
    // PGlite's drizzle answers { rows }, node-postgres's the rows themselves.
    const names = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
      name: string;
    }>;
    expect(names.map((row) => row.name).sort()).toEqual(
      (await listedTriggers()).map((row) => row.trigger).sort(),
    );
  });

  it("each name a test file that exists and the test in it", async () => {
    for (const { trigger, coveredBy } of await listedTriggers()) {
      const file = /`([^`]+\.test\.ts)`/.exec(coveredBy)?.[1];
      expect(file, `${trigger}: a covering test file`).toBeDefined();
      const text = await fs.readFile(path.join(root, file!), "utf8");
      const quoted = /\("([^"]+?)(?: …)?"\)/.exec(coveredBy)?.[1];
      if (quoted) expect(text, `${trigger}: ${file} has the test "${quoted}"`).toContain(quoted);
    }
  });
});
