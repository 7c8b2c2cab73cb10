import crypto from "node:crypto";
import { promisify } from "node:util";

/**
 * A backup archive: a header in the clear, then one AES-256-GCM ciphertext of the contents, then
 * its tag. The key comes from the passphrase by scrypt; the header (format, scrypt cost, salt,
 * nonce) is authenticated with the contents, so changing any byte of the file is detected.
 * The contents are a JSON manifest line followed by the files it lists, back to back.
 */

const MAGIC = Buffer.from("NAIJALINK-BACKUP");
const FORMAT = 1;
const SALT_BYTES = 16;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 2 + SALT_BYTES + NONCE_BYTES;
/** scrypt N = 2^17, r = 8: about 128 MiB and a fraction of a second per attempt. */
const COST_LOG2 = 17;
const SCRYPT_MEMORY_LIMIT = 256 * 1024 * 1024;
export const MIN_PASSPHRASE_LENGTH = 12;

const scrypt = promisify(crypto.scrypt) as (
  passphrase: string,
  salt: Buffer,
  length: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

export type BackupDatabaseKind = "pglite" | "postgres";

export interface BackupContents {
  createdAt: string;
  database: BackupDatabaseKind;
  /** PGlite: its data directory as a gzipped tarball; PostgreSQL: `pg_dump --format=custom`. */
  databaseDump: Buffer;
  /** DATA_DIR/secrets.json as the restored instance must find it. */
  secretsJson: Buffer;
}

/** Why an archive cannot be opened; the message is for the operator and names no secret. */
export class BackupArchiveError extends Error {
  override name = "BackupArchiveError";
}

interface Manifest {
  createdAt: string;
  database: BackupDatabaseKind;
  files: Array<{ name: "database" | "secrets.json"; bytes: number }>;
}

function deriveKey(passphrase: string, salt: Buffer, costLog2: number): Promise<Buffer> {
  return scrypt(passphrase, salt, 32, { N: 2 ** costLog2, r: 8, p: 1, maxmem: SCRYPT_MEMORY_LIMIT });
}

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH)
    throw new BackupArchiveError(`The passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters.`);
}

export async function sealBackup(contents: BackupContents, passphrase: string): Promise<Buffer> {
  checkPassphrase(passphrase);
  const manifest: Manifest = {
    createdAt: contents.createdAt,
    database: contents.database,
    files: [
      { name: "database", bytes: contents.databaseDump.length },
      { name: "secrets.json", bytes: contents.secretsJson.length },
    ],
  };
  const salt = crypto.randomBytes(SALT_BYTES);
  const nonce = crypto.randomBytes(NONCE_BYTES);
  const header = Buffer.concat([MAGIC, Buffer.from([FORMAT, COST_LOG2]), salt, nonce]);
  const cipher = crypto.createCipheriv("aes-256-gcm", await deriveKey(passphrase, salt, COST_LOG2), nonce);
  cipher.setAAD(header);
  const ciphertext = Buffer.concat([
    cipher.update(`${JSON.stringify(manifest)}\n`),
    cipher.update(contents.databaseDump),
    cipher.update(contents.secretsJson),
    cipher.final(),
  ]);
  return Buffer.concat([header, ciphertext, cipher.getAuthTag()]);
}

/** Decrypts and checks the whole archive before answering, so nothing is restored from a bad one. */
export async function openBackup(archive: Buffer, passphrase: string): Promise<BackupContents> {
  if (archive.length < HEADER_BYTES + TAG_BYTES || !archive.subarray(0, MAGIC.length).equals(MAGIC))
    throw new BackupArchiveError("This file is not a NaijaLink backup archive.");
  const format = archive[MAGIC.length];
  const costLog2 = archive[MAGIC.length + 1]!;
  if (format !== FORMAT)
    throw new BackupArchiveError(`This archive has format ${format}; this version reads format ${FORMAT}.`);
  if (costLog2 < 14 || costLog2 > 20)
    throw new BackupArchiveError("The archive was changed or damaged: its header is not valid.");
  const header = archive.subarray(0, HEADER_BYTES);
  const salt = header.subarray(MAGIC.length + 2, MAGIC.length + 2 + SALT_BYTES);
  const nonce = header.subarray(MAGIC.length + 2 + SALT_BYTES);
  const decipher = crypto.createDecipheriv("aes-256-gcm", await deriveKey(passphrase, salt, costLog2), nonce);
  decipher.setAAD(header);
  decipher.setAuthTag(archive.subarray(archive.length - TAG_BYTES));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([
      decipher.update(archive.subarray(HEADER_BYTES, archive.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new BackupArchiveError(
      "The archive could not be opened: the passphrase is wrong, or the file was changed or damaged. Nothing was restored.",
    );
  }
  return readContents(plaintext);
}

function readContents(plaintext: Buffer): BackupContents {
  const newline = plaintext.indexOf(0x0a);
  const manifest = JSON.parse(plaintext.subarray(0, newline).toString("utf8")) as Manifest;
  let offset = newline + 1;
  const files = new Map<string, Buffer>();
  for (const file of manifest.files) {
    files.set(file.name, plaintext.subarray(offset, offset + file.bytes));
    offset += file.bytes;
  }
  return {
    createdAt: manifest.createdAt,
    database: manifest.database,
    databaseDump: files.get("database")!,
    secretsJson: files.get("secrets.json")!,
  };
}
