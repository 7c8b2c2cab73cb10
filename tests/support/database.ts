import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { describe, inject } from "vitest";
import {
  PGLITE_EXTENSIONS,
  wrapPglite,
  wrapPostgres,
  type DatabaseHandle,
  type DatabaseKind,
} from "#server/db/client.ts";
import { migrate } from "#server/db/migrate.ts";
import { createScratchPostgres, databaseUrl } from "./scratch-postgres.ts";

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL points at a server (.ci/run sets it). */
export const databaseKinds: DatabaseKind[] = process.env.TEST_DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];

/**
 * A suite about what only PostgreSQL has (roles, several processes on one server). Without
 * TEST_DATABASE_URL it is skipped, with a line that says so, and the file still passes: the README
 * makes PostgreSQL optional. `required` (CI) turns the skip into the suite's own failure instead.
 */
export function describeOnPostgres(title: string, body: () => void, options: { required?: boolean } = {}) {
  const runs = Boolean(process.env.TEST_DATABASE_URL) || options.required === true;
  if (!runs) console.warn(`[${title}] skipped: needs PostgreSQL (set TEST_DATABASE_URL)`);
  describe.skipIf(!runs)(title, body);
}

let migratedTemplate: Promise<Blob> | undefined;
let postgresTemplate: Promise<string> | undefined;

// initdb costs seconds and hundreds of MB, so a run migrates one PGlite once, saved in the run's
// template folder (template-setup.ts), and every test database starts as a copy of it. Two
// workers may both make it at first; each writes its own file and renames it into place.
function pgliteTemplate(): Promise<Blob> {
  migratedTemplate ??= (async () => {
    const file = path.join(inject("templateDir"), "pglite.tar");
    const saved = await fs.readFile(file).catch(() => undefined);
    if (saved) return new Blob([saved]);
    const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
    await migrate(wrapPglite(client).db);
    const dump = await client.dumpDataDir("none");
    await client.close();
    const partial = `${file}.${process.pid}`;
    await fs.writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await fs.rename(partial, file);
    return dump;
  })();
  return migratedTemplate;
}

/** Taken while a worker makes the run's PostgreSQL template, so it is made once. */
const TEMPLATE_LOCK_ID = 7_241_181;
const READY = "migrated";

/** The run's migrated PostgreSQL template database, made by the first worker that needs it. */
function postgresTemplateOf(serverUrl: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = inject("postgresTemplate");
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK_ID]);
      const { rows } = await admin.query<{ note: string | null }>(
        "select shobj_description(oid, 'pg_database') as note from pg_database where datname = $1",
        [name],
      );
      if (rows[0]?.note === READY) return name;
      // Left half-made by a worker that died while migrating it: made again.
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`create database ${name}`);
      const pool = new pg.Pool({ connectionString: databaseUrl(serverUrl, name), max: 1 });
      try {
        await migrate(wrapPostgres(pool).db);
      } finally {
        await pool.end();
      }
      await admin.query(`comment on database ${name} is '${READY}'`);
      return name;
    } finally {
      await admin.end();
    }
  })();
  return postgresTemplate;
}

/** A fresh, migrated database of the given kind, dropped again by `close()`. */
export async function createTestDatabase(kind: DatabaseKind = "pglite"): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const client = new PGlite({ loadDataDir: await pgliteTemplate(), extensions: PGLITE_EXTENSIONS });
    await client.waitReady;
    return wrapPglite(client);
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is not set: no PostgreSQL server to test against");
  const template = await postgresTemplateOf(serverUrl);
  return createScratchPostgres({ serverUrl, prefix: "naijalink_test", poolMax: 20, template });
}

/**
 * `close()` (below) ends the pool and then drops the database `with (force)`;
 * pg-pool resolves `end()` before its clients have closed, so the forced drop can terminate them
 * and the pool re-emits that as an unhandled 'error'. Expected here: swallow it.
 */
export function ignoreTerminatedConnections(handle: DatabaseHandle | undefined) {
  const client = (
    handle?.db as unknown as { $client?: { on?: (event: string, listener: () => void) => void } }
  )?.$client;
  if (handle?.kind === "postgres") client?.on?.("error", () => {});
}
