import { PGlite } from "@electric-sql/pglite";
import crypto from "node:crypto";
import pg from "pg";
import { wrapPglite, wrapPostgres, type DatabaseHandle, type DatabaseKind } from "#server/db/client.ts";
import { migrate } from "#server/db/migrate.ts";

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL points at a server (.ci/run sets it). */
export const databaseKinds: DatabaseKind[] = process.env.TEST_DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];

let migratedTemplate: Promise<Blob> | undefined;

// initdb costs seconds and hundreds of MB, so each worker migrates one PGlite once
// and every test database starts as a copy of it.
function pgliteTemplate(): Promise<Blob> {
  migratedTemplate ??= (async () => {
    const client = new PGlite();
    await migrate(wrapPglite(client).db);
    const dump = await client.dumpDataDir("none");
    await client.close();
    return dump;
  })();
  return migratedTemplate;
}

/** A fresh, migrated database of the given kind, dropped again by `close()`. */
export async function createTestDatabase(kind: DatabaseKind = "pglite"): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const client = new PGlite({ loadDataDir: await pgliteTemplate() });
    await client.waitReady;
    return wrapPglite(client);
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is not set: no PostgreSQL server to test against");
  const name = `naijalink_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 20 });
  const handle = wrapPostgres(pool);
  await migrate(handle.db);
  return {
    ...handle,
    async close() {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
