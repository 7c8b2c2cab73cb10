import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { ConfigError, type Config } from "./config.ts";
import type { Executor } from "./db/client.ts";
import { sealingKeyCheck } from "./db/schema/index.ts";

/**
 * DATA_DIR holds private keys (secrets.json, the .eml outbox), the database and its WAL (session
 * tokens): nobody but the app's user may read any of it. New files are private by the umask set
 * here (the app's process is the only writer of DATA_DIR); files left by an older version are
 * tightened once. Answers how many files it tightened.
 */
export async function securePrivateDirectory(directory: string): Promise<number> {
  process.umask(0o077);
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  let tightened = 0;
  const tighten = async (target: string, mode: number) => {
    const stat = await fs.lstat(target);
    if (stat.isSymbolicLink() || (stat.mode & 0o077) === 0) return stat;
    await fs.chmod(target, mode);
    tightened += 1;
    return stat;
  };
  await tighten(directory, 0o700);
  for (const entry of await fs.readdir(directory, { recursive: true })) {
    const target = path.join(directory, entry);
    try {
      const stat = await fs.lstat(target);
      await tighten(target, stat.isDirectory() ? 0o700 : 0o600);
    } catch (error) {
      // The database removes its own files as it goes (temporary files, old segments): gone is fine.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return tightened;
}

export interface StoredSecrets {
  configEncryptionKey: string;
  authSecret: string;
}

export function secretsFile(dataDir: string): string {
  return path.join(dataDir, "secrets.json");
}

/**
 * The keys the app would use, without generating any: from config where set, otherwise from
 * DATA_DIR/secrets.json. Undefined when a key is in neither (a DATA_DIR never started).
 */
export async function currentSecrets(
  config: Pick<Config, "DATA_DIR" | "CONFIG_ENCRYPTION_KEY" | "BETTER_AUTH_SECRET">,
): Promise<StoredSecrets | undefined> {
  const stored: Partial<StoredSecrets> = await fs
    .readFile(secretsFile(config.DATA_DIR), "utf8")
    .then((text) => JSON.parse(text) as Partial<StoredSecrets>)
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return {} as Partial<StoredSecrets>;
      throw error;
    });
  const configEncryptionKey = config.CONFIG_ENCRYPTION_KEY ?? stored.configEncryptionKey;
  const authSecret = config.BETTER_AUTH_SECRET ?? stored.authSecret;
  return configEncryptionKey && authSecret ? { configEncryptionKey, authSecret } : undefined;
}

/**
 * Keys come from config; on a fresh machine they are generated once into DATA_DIR
 * (mode 0600) so restarts can still read what was sealed before.
 */
export async function loadSecrets(config: Config): Promise<StoredSecrets> {
  if (config.CONFIG_ENCRYPTION_KEY && config.BETTER_AUTH_SECRET) {
    return { configEncryptionKey: config.CONFIG_ENCRYPTION_KEY, authSecret: config.BETTER_AUTH_SECRET };
  }
  const file = secretsFile(config.DATA_DIR);
  let stored: StoredSecrets;
  try {
    stored = JSON.parse(await fs.readFile(file, "utf8")) as StoredSecrets;
  } catch {
    stored = {
      configEncryptionKey: crypto.randomBytes(32).toString("base64"),
      authSecret: crypto.randomBytes(32).toString("base64url"),
    };
    await fs.mkdir(config.DATA_DIR, { recursive: true });
    await fs.writeFile(file, JSON.stringify(stored), { mode: 0o600, flag: "wx" }).catch(async (error) => {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      stored = JSON.parse(await fs.readFile(file, "utf8")) as StoredSecrets;
    });
  }
  return {
    configEncryptionKey: config.CONFIG_ENCRYPTION_KEY ?? stored.configEncryptionKey,
    authSecret: config.BETTER_AUTH_SECRET ?? stored.authSecret,
  };
}

export interface Sealer {
  seal(plaintext: string): string;
  unseal(sealed: string): string;
}

/** AES-256-GCM with a random nonce per value: `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function createSealer(base64Key: string): Sealer {
  const key = Buffer.from(base64Key, "base64");
  if (key.length !== 32) throw new Error("The at-rest encryption key must be 32 bytes");
  return {
    seal(plaintext) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    unseal(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || ciphertext === undefined)
        throw new Error("Unreadable sealed value");
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

const SEALING_KEY_CHECK = "NaijaLink sealing key check";

/**
 * Refuses a key that cannot open what this database holds: every app process on one database
 * must seal with the same key (decision 081). The first start seals the check value.
 */
export async function checkSealingKey(executor: Executor, sealer: Sealer): Promise<void> {
  await executor
    .insert(sealingKeyCheck)
    .values({ sealed: sealer.seal(SEALING_KEY_CHECK) })
    .onConflictDoNothing();
  const [row] = await executor.select().from(sealingKeyCheck);
  let opened: string | undefined;
  try {
    opened = sealer.unseal(row!.sealed);
  } catch {
    opened = undefined;
  }
  if (opened !== SEALING_KEY_CHECK)
    throw new ConfigError([
      "CONFIG_ENCRYPTION_KEY: not the key this database's data was sealed with. Every app process on one database needs the same CONFIG_ENCRYPTION_KEY (and BETTER_AUTH_SECRET); see docs/topology.md",
    ]);
}

export function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/**
 * Whether an `Authorization: Bearer <token>` header carries `expected`. The hashes are compared
 * in constant time: equal lengths whatever was sent, so the time tells nothing about the token.
 */
export function bearerTokenMatches(authorization: string | null, expected: string): boolean {
  const presented = /^Bearer (\S+)$/.exec(authorization?.trim() ?? "")?.[1];
  if (!presented) return false;
  const a = crypto.createHash("sha256").update(presented).digest();
  const b = crypto.createHash("sha256").update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** 128 bits of randomness, URL-safe. */
export function generateToken(bytes = 16): string {
  return crypto.randomBytes(bytes).toString("base64url");
}
