// `npm run restore -- --from FILE [--passphrase-file FILE] [--force]`: brings a backup back into
// DATA_DIR (and DATABASE_URL's database, which must be new and empty) with the server stopped
// (decision 082). Refuses a target that holds anything unless --force; a wrong passphrase or a
// changed archive writes nothing.
import fs from "node:fs/promises";
import { parseCommandLine, usageError } from "#agent/command-line.ts";
import { loadConfig } from "#server/config.ts";
import { PASSPHRASE_VARIABLE, readPassphrase, restoreBackup } from "#server/domain/ops/backup/backup.ts";
import { loadEnvFile } from "./env-file.js";

const usage = "Usage: npm run restore -- --from FILE [--passphrase-file FILE] [--force]";

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine(usage, process.argv.slice(2), {
    from: { type: "string" },
    "passphrase-file": { type: "string" },
    force: { type: "boolean", default: false },
  });
  if (positionals.length) usageError(`unexpected argument ${positionals[0]}`, usage);
  if (!values.from) usageError("--from is required", usage);
  loadEnvFile();
  try {
    const config = loadConfig();
    const passphrase = await readPassphrase(values["passphrase-file"], process.env[PASSPHRASE_VARIABLE]);
    const archive = await fs.readFile(values.from!);
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
