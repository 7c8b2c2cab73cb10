// `npm run db:snapshot`: brings drizzle-kit's record of the schema (server/db/migrations/meta/) up
// to the last migration after one was written by hand, without writing a migration (decision 127).
// `npm run db:generate` compares server/db/schema/ with the newest snapshot and numbers a new
// migration after the journal's last entry; a hand-written migration leaves both behind.
//
// It (1) adds a journal entry for any migration file without one and sets each entry's `idx` to its
// file's number (drizzle-kit numbers the next migration last idx + 1), then (2) writes
// meta/NNNN_snapshot.json for the last migration from the schema as it is now. Run it once the
// schema says what the hand-written SQL does (docs/database.md). `--check` changes nothing: it
// fails, naming the step, when either is out of date (`npm run db:generate` runs it first).
import fs from "node:fs";
import path from "node:path";
import { generateDrizzleJson } from "drizzle-kit/api";
import * as schema from "#server/db/schema/index.ts";

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../server/db/migrations");

const HELP = `Usage: npm run db:snapshot [-- --check]

Makes server/db/migrations/meta/ match the migrations and the schema after a migration was
written by hand (docs/database.md, "Making a migration"): adds missing journal entries, numbers
them as their files, and writes the last migration's snapshot from server/db/schema/. Writes no
migration.

  --check   change nothing; exit 1 naming what is out of date (npm run db:generate runs this)
  --help    this text`;

interface JournalEntry {
  idx: number;
  version: string;
  when: number;
  tag: string;
  breakpoints: boolean;
}

interface Journal {
  version: string;
  dialect: string;
  entries: JournalEntry[];
}

const numberOf = (tag: string) => Number(tag.slice(0, tag.indexOf("_")));

/** The journal as it should be: one entry per migration file, in order, `idx` its number. */
export function journalFor(
  journal: Journal,
  migrationFiles: string[],
): { journal: Journal; problems: string[] } {
  const problems: string[] = [];
  const tags = migrationFiles.map((file) => file.replace(/\.sql$/, "")).sort();
  const byTag = new Map(journal.entries.map((entry) => [entry.tag, entry]));
  for (const entry of journal.entries)
    if (!tags.includes(entry.tag)) throw new Error(`The journal names ${entry.tag}, which has no .sql file.`);
  const misnumbered: string[] = [];
  const entries = tags.map((tag) => {
    const entry = byTag.get(tag);
    if (!entry) problems.push(`${tag}.sql has no journal entry`);
    else if (entry.idx !== numberOf(tag)) misnumbered.push(tag);
    return { ...(entry ?? { version: "7", when: Date.now(), breakpoints: true, tag }), idx: numberOf(tag) };
  });
  if (misnumbered.length > 0)
    problems.push(
      `the journal's idx is not the file's number for ${misnumbered.length} entries (${misnumbered[0]} …)`,
    );
  return { journal: { ...journal, entries }, problems };
}

function main(argv: string[]): number {
  if (argv.includes("--help")) {
    console.log(HELP);
    return 0;
  }
  const unknown = argv.filter((arg) => arg !== "--check");
  if (unknown.length > 0) {
    console.error(`Unknown option ${unknown[0]}.\n\n${HELP}`);
    return 2;
  }
  const check = argv.includes("--check");
  const meta = path.join(MIGRATIONS_DIR, "meta");
  const journalPath = path.join(meta, "_journal.json");
  const migrationFiles = fs.readdirSync(MIGRATIONS_DIR).filter((file) => /^\d{4}_.+\.sql$/.test(file));
  let journal: Journal, problems: string[];
  try {
    ({ journal, problems } = journalFor(JSON.parse(fs.readFileSync(journalPath, "utf8")), migrationFiles));
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }

  const last = journal.entries.at(-1)!;
  const snapshotName = `${last.tag.slice(0, 4)}_snapshot.json`;
  const snapshots = fs
    .readdirSync(meta)
    .filter((file) => file.endsWith("_snapshot.json"))
    .sort();
  if (!snapshots.includes(snapshotName)) problems.push(`${last.tag} has no snapshot (meta/${snapshotName})`);
  // The snapshot chain: each names the one before it (a merge of two branches' migrations can
  // leave the last one naming the snapshot its branch started from).
  const previousName = snapshots.filter((file) => file < snapshotName).at(-1);
  const readSnapshot = (name: string) =>
    JSON.parse(fs.readFileSync(path.join(meta, name), "utf8")) as { id: string; prevId: string };
  const existing = snapshots.includes(snapshotName) ? readSnapshot(snapshotName) : undefined;
  const previousId = previousName ? readSnapshot(previousName).id : undefined;
  if (existing && previousId && existing.prevId !== previousId)
    problems.push(`meta/${snapshotName} does not follow meta/${previousName} (its prevId)`);

  if (check) {
    if (problems.length === 0) return 0;
    console.error(
      `server/db/migrations/meta/ is behind the migrations: ${problems.join("; ")}.\n` +
        "Run `npm run db:snapshot` once the schema says what the hand-written migrations do (docs/database.md).",
    );
    return 1;
  }

  fs.writeFileSync(journalPath, `${JSON.stringify(journal, null, 2)}\n`);
  // Rewriting the last snapshot keeps its own id and names the one before it.
  const snapshot = generateDrizzleJson(schema, previousId ?? existing?.prevId, undefined, "snake_case");
  const written = {
    ...snapshot,
    id: existing?.id ?? snapshot.id,
    _meta: { columns: {}, schemas: {}, tables: {} },
  };
  fs.writeFileSync(path.join(meta, snapshotName), JSON.stringify(written, null, 2));
  for (const problem of problems) console.log(`Fixed: ${problem}.`);
  console.log(
    `Wrote server/db/migrations/meta/${snapshotName} from server/db/schema/ (the state after ${last.tag}); ` +
      "`npm run db:generate` now writes a migration only for schema changes made after it.",
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
