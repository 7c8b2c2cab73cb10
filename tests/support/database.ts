import { PGlite } from "@electric-sql/pglite";
import { wrapPglite, type DatabaseHandle, type DatabaseKind } from "#server/db/client.ts";
import { migrate } from "#server/db/migrate.ts";
import { createScratchPostgres } from "./scratch-postgres.ts";

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
  const handle = await createScratchPostgres({ serverUrl, prefix: "naijalink_test", poolMax: 20 });
  await migrate(handle.db);
  return handle;
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
