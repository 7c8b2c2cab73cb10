import crypto from "node:crypto";
import type { Logger } from "drizzle-orm";
import pg from "pg";
import { wrapPostgres, type DatabaseHandle } from "#server/db/client.ts";

/**
 * A throw-away database on the PostgreSQL server at `serverUrl`, dropped by `close()`: empty, or
 * a copy of `template`. Used by the tests and the benchmarks; it is not migrated here.
 */
export async function createScratchPostgres(options: {
  serverUrl: string;
  prefix: string;
  poolMax: number;
  logger?: Logger;
  template?: string;
}): Promise<DatabaseHandle & { url: string }> {
  const name = `${options.prefix}_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: options.serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${options.template ? ` template ${options.template}` : ""}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(options.serverUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: options.poolMax });
  const handle = wrapPostgres(pool, options.logger);
  return {
    ...handle,
    /** For other processes (the multi-process test's app servers) to open it themselves. */
    url,
    async close() {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: options.serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** The address of database `name` on the server at `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
