import fs from "node:fs/promises";
import path from "node:path";
import type { Config } from "#server/config.ts";
import { currentSecrets, secretsFile, securePrivateDirectory, type StoredSecrets } from "#server/secrets.ts";
import {
  BackupArchiveError,
  checkPassphrase,
  openBackup,
  sealBackup,
  type BackupContents,
} from "./archive.ts";
import { checkDatabaseTarget, databaseKindOf, dumpDatabase, loadDatabase } from "./database-dump.ts";

type BackupConfig = Pick<
  Config,
  "DATABASE_URL" | "DATABASE_MIGRATION_URL" | "DATA_DIR" | "CONFIG_ENCRYPTION_KEY" | "BETTER_AUTH_SECRET"
>;

/**
 * One encrypted archive of the database and the keys that open it. The archive carries the keys
 * in use even when they come from the environment, so a restore never depends on a copy kept
 * elsewhere.
 */
export async function createBackup(
  config: BackupConfig,
  passphrase: string,
  now = new Date(),
): Promise<Buffer> {
  checkPassphrase(passphrase);
  const secrets = await currentSecrets(config);
  if (!secrets)
    throw new BackupArchiveError(
      `No keys to back up: ${secretsFile(config.DATA_DIR)} is missing and CONFIG_ENCRYPTION_KEY / BETTER_AUTH_SECRET are not both set. Is DATA_DIR right?`,
    );
  const contents: BackupContents = {
    createdAt: now.toISOString(),
    database: databaseKindOf(config),
    databaseDump: await dumpDatabase(config),
    secretsJson: Buffer.from(JSON.stringify(secrets satisfies StoredSecrets)),
  };
  return sealBackup(contents, passphrase);
}

/** Writes a new file only this user can read; an existing file is never overwritten. */
export async function writeBackupFile(file: string, archive: Buffer): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  await fs.writeFile(temporary, archive, { mode: 0o600, flag: "wx" });
  try {
    // A hard link is created only where no file is: the archive appears whole or not at all.
    await fs.link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new BackupArchiveError(`${file} already exists: choose another name.`);
    throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

async function checkSecretsTarget(dataDir: string, force: boolean): Promise<void> {
  const exists = await fs.access(secretsFile(dataDir)).then(
    () => true,
    () => false,
  );
  if (exists && !force)
    throw new BackupArchiveError(
      `${secretsFile(dataDir)} already exists: restore into a fresh DATA_DIR, or pass --force to replace it.`,
    );
}

/**
 * Restores into a fresh DATA_DIR (and, with DATABASE_URL, an empty database). Every check (the
 * targets are empty, the passphrase opens the archive, nothing in it was changed, it holds the
 * configured kind of database) passes before the first byte is written.
 */
export async function restoreBackup(
  config: BackupConfig,
  archive: Buffer,
  passphrase: string,
  options: { force?: boolean } = {},
): Promise<{ database: BackupContents["database"]; createdAt: string }> {
  const force = options.force ?? false;
  await checkSecretsTarget(config.DATA_DIR, force);
  await checkDatabaseTarget(config, force);
  const contents = await openBackup(archive, passphrase);
  if (contents.database !== databaseKindOf(config))
    throw new BackupArchiveError(
      contents.database === "postgres"
        ? "This archive holds a PostgreSQL database: set DATABASE_URL to a new, empty database and restore again."
        : "This archive holds the embedded (PGlite) database: unset DATABASE_URL to restore it into DATA_DIR.",
    );
  await securePrivateDirectory(config.DATA_DIR);
  await loadDatabase(config, contents.databaseDump, force);
  await fs.writeFile(secretsFile(config.DATA_DIR), contents.secretsJson, {
    mode: 0o600,
    flag: force ? "w" : "wx",
  });
  await securePrivateDirectory(config.DATA_DIR);
  return { database: contents.database, createdAt: contents.createdAt };
}

export const PASSPHRASE_VARIABLE = "NAIJALINK_BACKUP_PASSPHRASE";

/**
 * The passphrase from a file (its last line break dropped) or the environment, never from an
 * argument, which every user on the machine can read in `ps`.
 */
export async function readPassphrase(file: string | undefined, fromEnvironment: string | undefined) {
  // A passphrase every user of the machine can read protects nothing (issue 25).
  if (file && ((await fs.stat(file)).mode & 0o004) !== 0)
    throw new BackupArchiveError(
      `${file} can be read by every user on this machine: run chmod 600 ${file} (or keep the passphrase in ${PASSPHRASE_VARIABLE}) and try again.`,
    );
  const passphrase = file ? (await fs.readFile(file, "utf8")).replace(/\r?\n$/, "") : fromEnvironment;
  if (!passphrase)
    throw new BackupArchiveError(
      `Give the passphrase with --passphrase-file FILE or ${PASSPHRASE_VARIABLE}.`,
    );
  checkPassphrase(passphrase);
  return passphrase;
}
