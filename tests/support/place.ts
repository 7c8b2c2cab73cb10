// One store's place that outlives its app, for tests that stop a store and start it again (a
// restart, a restore): its DATA_DIR and, on PostgreSQL, its own new database.
import fs from "node:fs/promises";
import type { DatabaseKind } from "#server/db/client.ts";
import { createTestApp, makeDataDir, testEnv, type TestApp } from "./app.ts";
import { createScratchPostgres } from "./scratch-postgres.ts";

export interface Place {
  dataDir: string;
  env: Record<string, string>;
  databaseUrl?: string;
  remove(): Promise<void>;
}

export async function newPlace(kind: DatabaseKind, prefix: string): Promise<Place> {
  const dataDir = await makeDataDir();
  const database =
    kind === "postgres"
      ? await createScratchPostgres({ serverUrl: process.env.TEST_DATABASE_URL!, prefix, poolMax: 1 })
      : undefined;
  const env = testEnv(dataDir, database ? { DATABASE_URL: database.url } : {});
  // The keys are generated into DATA_DIR/secrets.json, as on a fresh machine.
  delete env.CONFIG_ENCRYPTION_KEY;
  delete env.BETTER_AUTH_SECRET;
  return {
    dataDir,
    env,
    databaseUrl: database?.url,
    async remove() {
      await database?.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The app on `place`, opening its database as `npm start` does; `env` adds settings. */
export function startApp(place: Place, env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({
    dataDir: place.dataDir,
    databaseFromConfig: true,
    generatedSecrets: true,
    env: { ...(place.databaseUrl ? { DATABASE_URL: place.databaseUrl } : {}), ...env },
  });
}
