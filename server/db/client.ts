import { PGlite, type Results, type Transaction as PGliteTransaction } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { ExtractTablesWithRelations, Logger, SQL } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
import pg from "pg";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repositories take either, so callers can compose them inside one transaction. */
export type Executor = Database | Transaction;

export type DatabaseKind = "pglite" | "postgres";

export interface DatabaseHandle {
  db: Database;
  kind: DatabaseKind;
  close(): Promise<void>;
}

/**
 * PGlite answers on this thread without I/O, so once requests queue for it, every one of them runs
 * to its end inside one task: timers, sockets and new requests wait for the whole queue (seconds of
 * event-loop delay under a burst in bench:fulfilment). Each statement and transaction started outside
 * a transaction first gives the event loop a turn; a transaction's own statements run together.
 */
export class PGliteTakingTurns extends PGlite {
  override async query<T>(...args: Parameters<PGlite["query"]>): Promise<Results<T>> {
    await nextTurnOfEventLoop();
    return super.query<T>(...args);
  }

  override async transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T> {
    await nextTurnOfEventLoop();
    return super.transaction(callback);
  }
}

/** `logger` sees every statement drizzle sends (the benchmarks count a purchase's statements with it). */
export function wrapPglite(client: PGlite, logger?: Logger): DatabaseHandle {
  return {
    db: drizzlePglite(client, { schema, casing: "snake_case", logger }) as unknown as Database,
    kind: "pglite",
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

export function wrapPostgres(pool: pg.Pool, logger?: Logger): DatabaseHandle {
  // An idle connection can die (server restart, a forced drop); without a listener that error
  // would crash the process. The pool replaces the connection on the next query.
  pool.on("error", (error) => process.emitWarning(`PostgreSQL connection lost: ${error.message}`));
  return {
    db: drizzlePostgres(pool, { schema, casing: "snake_case", logger }) as unknown as Database,
    kind: "postgres",
    close: () => pool.end(),
  };
}

/** PostgreSQL when a URL is given, otherwise the embedded PGlite under `dataDir`. */
export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    await pool.query("select 1");
    return wrapPostgres(pool);
  }
  const directory = path.join(options.dataDir, "pglite");
  await fs.mkdir(directory, { recursive: true });
  await initialiseInChildProcess(directory);
  const client = new PGliteTakingTurns(directory, {
    postgresqlconf: PGLITE_SETTINGS,
    extensions: PGLITE_EXTENSIONS,
  });
  await client.waitReady;
  return wrapPglite(client);
}

/**
 * Measured with bench/memory.ts (decision 099): PostgreSQL's default 128 MB of shared buffers
 * live in PGlite's WebAssembly memory, which never shrinks; 16 MB hold a small shop's hot pages
 * (the operating system caches the files besides). `initialMemory` cannot go below PGlite's
 * own 128 MB floor, so it stays at its default.
 */
export const PGLITE_SETTINGS = ["shared_buffers = 16MB"];

/**
 * The extensions the schema uses (decision 138: pg_trgm's indexes serve the console's "contains"
 * search). PGlite loads an extension only when told at start-up, and a store whose indexes use
 * one cannot be written without it: every PGlite that opens the store passes these.
 */
export const PGLITE_EXTENSIONS = { pg_trgm };

/**
 * A new store runs initdb in a second, in-memory PostgreSQL that PGlite starts beside the first;
 * the memory both took stays with the process (about 500 MB more than opening an existing
 * store). A short-lived child process makes the store instead, and this one only opens it.
 */
async function initialiseInChildProcess(directory: string): Promise<void> {
  if (existsSync(path.join(directory, "PG_VERSION"))) return;
  const pglite = import.meta.resolve("@electric-sql/pglite");
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)});
const client = new PGlite(process.argv[1]);
await client.waitReady;
await client.close();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, directory], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  if (code !== 0) throw new Error(`creating the embedded database in ${directory} failed: ${stderr.trim()}`);
}

/** Raw SQL rows; both drivers answer `{ rows }`, which drizzle's shared type leaves unknown. */
export async function queryRows<Row>(executor: Executor, query: SQL): Promise<Row[]> {
  const result = (await executor.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}

/** A unique constraint refused the write (SQLSTATE 23505), on either driver, however drizzle wrapped it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current = error; current && typeof current === "object";) {
    if ((current as { code?: unknown }).code === "23505") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A statement drizzle builds once per database and runs again with new values
 * (`sql.placeholder`): for the hot statements of the purchase path that run outside a
 * transaction, where building a wide statement cost drizzle more than PostgreSQL took to run it
 * (decision 118). On PostgreSQL it is also a named prepared statement, planned once per
 * connection. It runs on the pool, never inside a transaction.
 */
export function preparedOnce<Statement>(prepare: (db: Database) => Statement): (db: Database) => Statement {
  const byDatabase = new WeakMap<Database, Statement>();
  return (db) => {
    let statement = byDatabase.get(db);
    if (statement === undefined) {
      statement = prepare(db);
      byDatabase.set(db, statement);
    }
    return statement;
  };
}
