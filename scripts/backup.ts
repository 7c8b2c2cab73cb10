// `npm run backup -- [--out FILE] [--passphrase-file FILE]`: one encrypted archive of the database
// and DATA_DIR/secrets.json (decision 082). The passphrase comes from the file or from
// NAIJALINK_BACKUP_PASSPHRASE. With the embedded database (no DATABASE_URL) stop the server first.
import { parseCommandLine, usageError } from "#agent/command-line.ts";
import { loadConfig } from "#server/config.ts";
import {
  createBackup,
  PASSPHRASE_VARIABLE,
  readPassphrase,
  writeBackupFile,
} from "#server/domain/ops/backup/backup.ts";
import { recordBackup } from "#server/domain/ops/backup/last-backup.ts";
import { loadEnvFile } from "./env-file.js";

const usage = "Usage: npm run backup -- [--out FILE] [--passphrase-file FILE]";

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine(usage, process.argv.slice(2), {
    out: { type: "string" },
    "passphrase-file": { type: "string" },
  });
  if (positionals.length) usageError(`unexpected argument ${positionals[0]}`, usage);
  loadEnvFile();
  try {
    const config = loadConfig();
    const passphrase = await readPassphrase(values["passphrase-file"], process.env[PASSPHRASE_VARIABLE]);
    const now = new Date();
    const out = values.out ?? `naijalink-${now.toISOString().replace(/[-:]|\.\d+/g, "")}.backup`;
    await writeBackupFile(out, await createBackup(config, passphrase, now));
    await recordBackup(config.DATA_DIR, now, out);
    console.log(`Backup written to ${out} (mode 0600). Keep the passphrase apart from it.`);
    return 0;
  } catch (error) {
    // Our own refusals, a bad setting, or what PostgreSQL or the file system said: the message is enough.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(await main());
