// `npm run restore -- --from FILE [--passphrase-file FILE] [--force]`: brings a backup back into
// DATA_DIR (and DATABASE_URL's database, which must be new and empty) with the server stopped
// (decision 082). Refuses a target that holds anything unless --force; a wrong passphrase or a
// changed archive writes nothing.
import { parseArgs } from "node:util";
import { loadConfig } from "#server/config.ts";
import { PASSPHRASE_VARIABLE, readPassphrase, restoreBackup } from "#server/domain/ops/backup/backup.ts";
import fs from "node:fs/promises";

const usage = "Usage: npm run restore -- --from FILE [--passphrase-file FILE] [--force]";

async function main(): Promise<number> {
  let values: { from?: string; "passphrase-file"?: string; force?: boolean };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        from: { type: "string" },
        "passphrase-file": { type: "string" },
        force: { type: "boolean", default: false },
      },
    }));
    if (!values.from) throw new Error("--from is required");
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  try {
    const config = loadConfig();
    const passphrase = await readPassphrase(values["passphrase-file"], process.env[PASSPHRASE_VARIABLE]);
    const archive = await fs.readFile(values.from);
    const restored = await restoreBackup(config, archive, passphrase, { force: values.force });
    console.log(
      `Restored the ${restored.database === "pglite" ? "embedded" : "PostgreSQL"} database and DATA_DIR/secrets.json from the backup of ${restored.createdAt}. Start the server: pending migrations run then.`,
    );
    return 0;
  } catch (error) {
    // Our own refusals, a bad setting, or what PostgreSQL or the file system said: the message is enough.
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(await main());
