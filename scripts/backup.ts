// `npm run backup -- [--out FILE] [--passphrase-file FILE]`: one encrypted archive of the database
// and DATA_DIR/secrets.json (decision 082). The passphrase comes from the file or from
// NAIJALINK_BACKUP_PASSPHRASE. With the embedded database (no DATABASE_URL) stop the server first.
import { parseArgs } from "node:util";
import { loadConfig } from "#server/config.ts";
import {
  createBackup,
  PASSPHRASE_VARIABLE,
  readPassphrase,
  writeBackupFile,
} from "#server/domain/ops/backup/backup.ts";

const usage = "Usage: npm run backup -- [--out FILE] [--passphrase-file FILE]";

async function main(): Promise<number> {
  let values: { out?: string; "passphrase-file"?: string };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { out: { type: "string" }, "passphrase-file": { type: "string" } },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  try {
    const config = loadConfig();
    const passphrase = await readPassphrase(values["passphrase-file"], process.env[PASSPHRASE_VARIABLE]);
    const now = new Date();
    const out = values.out ?? `naijalink-${now.toISOString().replace(/[-:]|\.\d+/g, "")}.backup`;
    await writeBackupFile(out, await createBackup(config, passphrase, now));
    console.log(`Backup written to ${out} (mode 0600). Keep the passphrase apart from it.`);
    return 0;
  } catch (error) {
    // Our own refusals, a bad setting, or what PostgreSQL or the file system said: the message is enough.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(await main());
