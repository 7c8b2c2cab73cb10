import fs from "node:fs/promises";
import path from "node:path";
import { bearerTokenMatches, generateToken } from "#server/secrets.ts";

// `npm run vpn` must not open PGlite while the server holds it (docs/product.md §11.7), so it asks the
// running server instead. The server proves who may ask by writing a fresh token into DATA_DIR
// (mode 0600) at every start: whoever can read the file can administer VPN servers.

export const ADMIN_TOKEN_FILE = "vpn-admin.json";

export interface AdminTokenFile {
  token: string;
  /** The server process that wrote it (the CLI checks whether it still runs). */
  pid: number;
  /** Where that process answers, written once it listens: the operator's commands ask there. */
  url?: string;
}

export function adminTokenPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_TOKEN_FILE);
}

export async function writeAdminToken(dataDir: string): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true });
  const file = adminTokenPath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  const content: AdminTokenFile = { token: generateToken(32), pid: process.pid };
  await fs.writeFile(temporary, JSON.stringify(content), { mode: 0o600 });
  await fs.rename(temporary, file);
}

/**
 * Adds the address the server listens on to its token file, so `npm run vpn` and `npm run doctor`
 * find it without PORT in the operator's shell. A wildcard host is asked on loopback.
 */
export async function recordServerUrl(
  dataDir: string,
  host: string | undefined,
  port: number,
): Promise<string> {
  const reachable = !host || host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const url = `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
  const current = await readAdminToken(dataDir);
  if (current?.pid !== process.pid) return url;
  const file = adminTokenPath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, JSON.stringify({ ...current, url } satisfies AdminTokenFile), {
    mode: 0o600,
  });
  await fs.rename(temporary, file);
  return url;
}

export async function readAdminToken(dataDir: string): Promise<AdminTokenFile | undefined> {
  try {
    return JSON.parse(await fs.readFile(adminTokenPath(dataDir), "utf8")) as AdminTokenFile;
  } catch {
    return undefined;
  }
}

export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid of a server that holds DATA_DIR now (its token file names a live process). */
export async function runningServerPid(dataDir: string): Promise<number | undefined> {
  const admin = await readAdminToken(dataDir);
  return admin && isProcessRunning(admin.pid) ? admin.pid : undefined;
}

/** Removes the file on shutdown unless another process has written its own since. */
export async function removeAdminToken(dataDir: string): Promise<void> {
  const current = await readAdminToken(dataDir);
  if (current?.pid === process.pid) await fs.rm(adminTokenPath(dataDir), { force: true });
}

export async function isAdminAuthorization(dataDir: string, authorization: string | null): Promise<boolean> {
  const stored = await readAdminToken(dataDir);
  return stored ? bearerTokenMatches(authorization, stored.token) : false;
}
