// `npm run backup` and `npm run restore` as an operator runs them: a restored DATA_DIR (and a new
// PostgreSQL database) serves the same config files and lets staff back in (decision 082).
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awaitingConfiguration, serveWaitingBuyers } from "#server/domain/billing/waiting-buyers.ts";
import { readLastBackup } from "#server/domain/ops/backup/last-backup.ts";
import { secretsFile } from "#server/secrets.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { makeDataDir, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, verify } from "../../support/purchase.ts";
import { newPlace, startApp, type Place } from "../../support/place.ts";
import { createAccount, PASSWORD, signIn, STAFF_EMAIL } from "../../support/staff.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const PASSPHRASE = "correct horse battery staple backup";

/** `npm run <script> -- args` with only the app's settings in the environment. */
function runScript(script: "backup" | "restore", args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), [`scripts/${script}.ts`, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

async function tableCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const result = await client.query<{ count: string }>(
    "select count(*) from pg_tables where schemaname = 'public'",
  );
  await client.end();
  return Number(result.rows[0]!.count);
}

/** What a restore may have written into a place: nothing, for a refused one. */
async function written(place: Place): Promise<string[]> {
  const entries = await fs.readdir(place.dataDir);
  const tables = place.databaseUrl ? await tableCount(place.databaseUrl) : 0;
  return [...entries, ...(tables ? [`${tables} tables`] : [])];
}

const staffPageHeaders = (app: TestApp, cookie: string) => ({
  origin: app.config.PUBLIC_URL,
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "cors",
  cookie,
});

describe.each(databaseKinds)("backup and restore on %s", (kind) => {
  let source: Place;
  let archive: string;
  let configPath: string;
  let configBefore: Buffer;
  let staffCookie: string;
  const places: Place[] = [];
  const passphraseEnv = { NAIJALINK_BACKUP_PASSPHRASE: PASSPHRASE };

  beforeAll(async () => {
    source = await newPlace(kind, "naijalink_backup");
    places.push(source);
    const app = await startApp(source);
    try {
      const sessionId = await buy(app, "pro-monthly", "restored@example.com");
      const paid = (await (await verify(app, { sessionId })).json()) as { downloadUrl: string };
      configPath = new URL(paid.downloadUrl).pathname;
      const download = await app.request(configPath);
      expect(download.status).toBe(200);
      configBefore = Buffer.from(await download.arrayBuffer());
      staffCookie = (await createAccount(app, STAFF_EMAIL)).cookie;
      // An Unlock Pass given 7 more days through its own checkout: served, never a buyer waiting.
      await buy(app, "unlock", "pass@example.com");
      const customer = await signedInCustomer(app, "pass@example.com");
      const [pass] = (
        (await (await accountRequest(app, "subscriptions", {}, customer)).json()) as {
          subscriptions: Array<{ id: string }>;
        }
      ).subscriptions;
      const extension = await accountRequest(
        app,
        "subscriptions/pass-checkout",
        { subscriptionId: pass!.id, planId: "unlock" },
        customer,
      );
      const extensionId = new URL(((await extension.json()) as { url: string }).url).pathname
        .split("/")
        .pop()!;
      expect((await payWith(app, extensionId, "4242 4242 4242 4242")).status).toBe(302);
      if (kind === "pglite") {
        // PGlite has one process: while the app holds DATA_DIR the backup refuses, and says why.
        const refused = await runScript("backup", ["--out", path.join(source.dataDir, "x")], {
          ...source.env,
          ...passphraseEnv,
        });
        expect(refused.code).toBe(1);
        expect(refused.output).toMatch(/holds .*: stop it before backing up/);
      }
    } finally {
      await app.close();
    }
    archive = path.join(await makeDataDir(), "naijalink.backup");
    const backup = await runScript("backup", ["--out", archive], { ...source.env, ...passphraseEnv });
    expect(backup.output).toContain(`Backup written to ${archive}`);
    expect(backup.code).toBe(0);
    // npm run doctor reads when the last one was made.
    expect(await readLastBackup(source.dataDir)).toMatchObject({ file: archive });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(places.map((place) => place.remove()));
    if (archive) await fs.rm(path.dirname(archive), { recursive: true, force: true });
  });

  it("writes one archive only its owner can read, with neither the keys nor the database in the clear", async () => {
    expect((await fs.stat(archive)).mode & 0o777).toBe(0o600);
    const bytes = await fs.readFile(archive);
    const secrets = JSON.parse(await fs.readFile(secretsFile(source.dataDir), "utf8")) as Record<
      string,
      string
    >;
    for (const key of Object.values(secrets)) expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes("PGDMP")).toBe(false);
    expect(bytes.includes('"createdAt"')).toBe(false);
    const again = await runScript("backup", ["--out", archive], { ...source.env, ...passphraseEnv });
    expect(again.code).toBe(1);
    expect(again.output).toContain("already exists");
  });

  it("restores nothing from a wrong passphrase or a changed archive, and says why", async () => {
    const target = await newPlace(kind, "naijalink_backup");
    places.push(target);
    const wrong = await runScript("restore", ["--from", archive], {
      ...target.env,
      NAIJALINK_BACKUP_PASSPHRASE: "not the passphrase at all",
    });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain("the passphrase is wrong, or the file was changed or damaged");
    expect(await written(target)).toEqual([]);

    const bytes = await fs.readFile(archive);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    const changed = path.join(path.dirname(archive), "changed.backup");
    await fs.writeFile(changed, bytes);
    const tampered = await runScript("restore", ["--from", changed], { ...target.env, ...passphraseEnv });
    expect(tampered.code).toBe(1);
    expect(tampered.output).toContain("Nothing was restored");
    expect(await written(target)).toEqual([]);

    const noPassphrase = await runScript("restore", ["--from", archive], target.env);
    expect(noPassphrase.code).toBe(1);
    expect(noPassphrase.output).toContain("--passphrase-file FILE or NAIJALINK_BACKUP_PASSPHRASE");
  }, 120_000);

  it("brings back an instance that serves the same config byte for byte and lets staff sign in, and refuses to restore over it", async () => {
    const target = await newPlace(kind, "naijalink_backup");
    places.push(target);
    const passphraseFile = path.join(path.dirname(archive), "passphrase");
    await fs.writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });
    const restored = await runScript(
      "restore",
      ["--from", archive, "--passphrase-file", passphraseFile],
      target.env,
    );
    expect(restored.output).toContain("Restored the");
    expect(restored.code).toBe(0);
    expect((await fs.stat(secretsFile(target.dataDir))).mode & 0o777).toBe(0o600);

    const again = await runScript("restore", ["--from", archive], { ...target.env, ...passphraseEnv });
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/already exists|already holds|not empty/);

    const app = await startApp(target);
    try {
      const download = await app.request(configPath);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(configBefore)).toBe(true);
      // The session signed before the backup still opens the console: the same auth secret.
      const list = await app.request("/api/blog-admin/list", {
        json: {},
        headers: staffPageHeaders(app, staffCookie),
      });
      expect(list.status).toBe(200);
      expect((await signIn(app, STAFF_EMAIL, PASSWORD)).status).toBe(200);
      // Every buyer was served before the backup: the restore brings none back as waiting.
      const pastGrace = new Date(Date.now() + 2 * 60_000);
      expect(await awaitingConfiguration(app.services.db, pastGrace)).toEqual([]);
      expect(await serveWaitingBuyers(app.services, pastGrace)).toEqual({ configsIssued: 0 });
    } finally {
      await app.close();
    }
  }, 180_000);
});
