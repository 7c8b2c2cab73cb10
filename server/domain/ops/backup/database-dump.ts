import { PGlite } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS } from "#server/db/client.ts";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import type { Config } from "#server/config.ts";
import { runningServerPid } from "#server/domain/vpn/admin-token.ts";
import { BackupArchiveError, type BackupDatabaseKind } from "./archive.ts";

// The embedded database is PGlite's data directory as a tarball (`dumpDataDir`); PGlite has one
// process, so that process must be this one: the app is stopped first (decision 082).
// PostgreSQL is `pg_dump --format=custom`, a consistent snapshot taken while the app runs.

export function databaseKindOf(config: Pick<Config, "DATABASE_URL">): BackupDatabaseKind {
  return config.DATABASE_URL ? "postgres" : "pglite";
}

function pgliteDirectory(dataDir: string): string {
  return path.join(dataDir, "pglite");
}

async function refuseWhileServerRuns(dataDir: string, doing: string): Promise<void> {
  const pid = await runningServerPid(dataDir);
  if (pid)
    throw new BackupArchiveError(
      `The server (pid ${pid}) holds ${dataDir}: stop it before ${doing} the embedded database (PGlite has one process).`,
    );
}

async function isEmptyDirectory(directory: string): Promise<boolean> {
  const entries = await fs.readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  return entries.length === 0;
}

async function dumpPglite(dataDir: string): Promise<Buffer> {
  await refuseWhileServerRuns(dataDir, "backing up");
  const directory = pgliteDirectory(dataDir);
  if (await isEmptyDirectory(directory))
    throw new BackupArchiveError(`${directory} holds no database: is DATA_DIR (or DATABASE_URL) right?`);
  const client = new PGlite(directory, { extensions: PGLITE_EXTENSIONS });
  await client.waitReady;
  try {
    return Buffer.from(await (await client.dumpDataDir("gzip")).arrayBuffer());
  } finally {
    await client.close();
  }
}

/**
 * libpq's tools see their arguments in `ps`: the URL goes without its password, which travels in
 * PGPASSWORD, an environment only this user can read.
 */
function postgresToolInvocation(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  return { url: url.toString(), env: password ? { ...process.env, PGPASSWORD: password } : process.env };
}

function runTool(command: string, args: string[], env: NodeJS.ProcessEnv, input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    const output: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => errors.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new BackupArchiveError(
              `${command} is not installed: install the PostgreSQL client of the server's major version (apt-get install postgresql-client-15).`,
            )
          : error,
      ),
    );
    child.on("close", (code) => {
      if (code === 0) return resolve(Buffer.concat(output));
      const detail = Buffer.concat(errors).toString("utf8").trim();
      reject(new BackupArchiveError(`${command} failed (exit ${code}): ${detail}`));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

async function dumpPostgres(databaseUrl: string): Promise<Buffer> {
  const { url, env } = postgresToolInvocation(databaseUrl);
  return runTool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--dbname=${url}`], env);
}

async function postgresTableCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      "select count(*) from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
    );
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

type DatabaseSettings = Pick<Config, "DATABASE_URL" | "DATABASE_MIGRATION_URL" | "DATA_DIR">;

/** Backups and restores connect as the database's owner where there is one. */
const ownerUrl = (config: DatabaseSettings) => config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL;

export function dumpDatabase(config: DatabaseSettings): Promise<Buffer> {
  return config.DATABASE_URL ? dumpPostgres(ownerUrl(config)!) : dumpPglite(config.DATA_DIR);
}

/** Refuses (throws) when the restore would overwrite a database that holds anything. */
export async function checkDatabaseTarget(config: DatabaseSettings, force: boolean): Promise<void> {
  if (config.DATABASE_URL) {
    const tables = await postgresTableCount(ownerUrl(config)!);
    if (tables && !force)
      throw new BackupArchiveError(
        `The database at DATABASE_URL is not empty (${tables} tables): restore into a new, empty database, or pass --force to replace what the archive holds.`,
      );
    return;
  }
  await refuseWhileServerRuns(config.DATA_DIR, "restoring");
  if (!(await isEmptyDirectory(pgliteDirectory(config.DATA_DIR))) && !force)
    throw new BackupArchiveError(
      `${pgliteDirectory(config.DATA_DIR)} already holds a database: restore into a fresh DATA_DIR, or pass --force to replace it.`,
    );
}

/** Loads a dump checked by `checkDatabaseTarget` (and `--force` to replace one that is there). */
export async function loadDatabase(config: DatabaseSettings, dump: Buffer, force: boolean): Promise<void> {
  if (config.DATABASE_URL) {
    const { url, env } = postgresToolInvocation(ownerUrl(config)!);
    const replace = force ? ["--clean", "--if-exists"] : [];
    await runTool(
      "pg_restore",
      [
        "--no-owner",
        "--no-privileges",
        "--exit-on-error",
        "--single-transaction",
        ...replace,
        `--dbname=${url}`,
      ],
      env,
      dump,
    );
    return;
  }
  const directory = pgliteDirectory(config.DATA_DIR);
  await fs.rm(directory, { recursive: true, force: true });
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  const client = new PGlite(directory, {
    loadDataDir: new Blob([new Uint8Array(dump)]),
    extensions: PGLITE_EXTENSIONS,
  });
  await client.waitReady;
  await client.close();
}
