import fs from "node:fs/promises";
import path from "node:path";

// When `npm run backup` last wrote an archive, for `npm run doctor`: a small file in DATA_DIR
// (mode 0600) beside the keys the archives carry. Archives made elsewhere (another host's cron)
// are not known here.

const FILE = "last-backup.json";

export interface LastBackup {
  at: string;
  file: string;
}

export async function recordBackup(dataDir: string, at: Date, file: string): Promise<void> {
  const target = path.join(dataDir, FILE);
  const temporary = `${target}.${process.pid}.tmp`;
  const record: LastBackup = { at: at.toISOString(), file: path.resolve(file) };
  await fs.writeFile(temporary, JSON.stringify(record), { mode: 0o600 });
  await fs.rename(temporary, target);
}

export async function readLastBackup(dataDir: string): Promise<LastBackup | undefined> {
  try {
    const record = JSON.parse(await fs.readFile(path.join(dataDir, FILE), "utf8")) as LastBackup;
    return Number.isNaN(Date.parse(record.at)) ? undefined : record;
  } catch {
    return undefined;
  }
}
