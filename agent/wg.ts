import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseDump, type DesiredPeer, type InterfaceState, type PeerDiff } from "./peers.ts";

/** How the agent calls `wg`: the argv prefix (default ["wg"]; e.g. ["ip", "netns", "exec", "ns1", "wg"]). */
export interface WgCommand {
  argv: string[];
}

export class WgError extends Error {}

/**
 * Runs `wg` without a shell. Error messages carry only the subcommand and wg's stderr, never
 * the arguments (they may name key files) or the input.
 */
export function runWg(command: WgCommand, args: string[], input?: string): Promise<string> {
  const [file, ...prefix] = command.argv;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      [...prefix, ...args],
      { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") {
            reject(new WgError(`${file} was not found: install wireguard-tools (wg)`));
            return;
          }
          reject(
            new WgError(
              `wg ${args[0] ?? ""} ${args[1] ?? ""} failed: ${String(stderr).trim().slice(0, 300)}`,
            ),
          );
          return;
        }
        resolve(String(stdout));
      },
    );
    // Node's stdin is a socket pair: `wg` cannot open it as /dev/stdin, so keys go via files.
    child.stdin?.on("error", () => undefined);
    if (input !== undefined) child.stdin?.end(input);
  });
}

export async function readInterface(command: WgCommand, iface: string): Promise<InterfaceState> {
  return parseDump(await runWg(command, ["show", iface, "dump"]));
}

/** Up to this many peers per `wg set` call keeps the argument list far below ARG_MAX. */
export const PEERS_PER_CALL = 1000;

// Preshared keys reach `wg` as files (it takes no key on the command line, where `ps` would
// show it): a private directory on tmpfs when there is one, removed right after the call.
async function withKeyDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const base = await fs
    .access("/dev/shm", fs.constants.W_OK)
    .then(() => "/dev/shm")
    .catch(() => os.tmpdir());
  const directory = await fs.mkdtemp(path.join(base, "naijalink-agent-"));
  try {
    await fs.chmod(directory, 0o700);
    return await work(directory);
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}

/**
 * Applies only the difference, in one `wg set <iface>` call per 1,000 peers: `peer K remove`
 * clauses first (an address a removed peer held is then free for a new one), then
 * `peer K preshared-key <file> allowed-ips a,b`. Never `wg syncconf`, whose cost grows with every
 * peer on the interface.
 */
export async function applyDiff(command: WgCommand, iface: string, diff: PeerDiff): Promise<void> {
  const clauses: Array<{ remove: string } | { upsert: DesiredPeer }> = [
    ...diff.removals.map((remove) => ({ remove })),
    ...diff.upserts.map((upsert) => ({ upsert })),
  ];
  if (clauses.length === 0) return;
  const run = async (directory: string | null) => {
    for (let start = 0; start < clauses.length; start += PEERS_PER_CALL) {
      const chunk = clauses.slice(start, start + PEERS_PER_CALL);
      const args = ["set", iface];
      const keyFiles: Array<Promise<void>> = [];
      chunk.forEach((clause, index) => {
        if ("remove" in clause) {
          args.push("peer", clause.remove, "remove");
          return;
        }
        const file = path.join(directory!, String(start + index));
        keyFiles.push(fs.writeFile(file, `${clause.upsert.presharedKey}\n`, { mode: 0o600 }));
        args.push("peer", clause.upsert.publicKey, "preshared-key", file);
        args.push("allowed-ips", clause.upsert.allowedIps.join(","));
      });
      await Promise.all(keyFiles);
      await runWg(command, args);
    }
  };
  if (diff.upserts.length === 0) await run(null);
  else await withKeyDirectory(run);
}

/** Points the interface at the node's private key file and listen port when they differ. */
export async function configureInterface(
  command: WgCommand,
  iface: string,
  options: { privateKeyFile: string; publicKey: string; listenPort?: number; current: InterfaceState },
): Promise<boolean> {
  const args = ["set", iface];
  if (options.current.publicKey !== options.publicKey) args.push("private-key", options.privateKeyFile);
  if (options.listenPort && options.current.listenPort !== options.listenPort)
    args.push("listen-port", String(options.listenPort));
  if (args.length === 2) return false;
  await runWg(command, args);
  return true;
}

/** Reads the node's private key file, creating it (`wg genkey`, mode 0600) on first run; returns the public key. */
export async function ensureNodeKey(command: WgCommand, privateKeyFile: string): Promise<string> {
  let privateKey: string;
  try {
    privateKey = (await fs.readFile(privateKeyFile, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    privateKey = (await runWg(command, ["genkey"])).trim();
    await fs.mkdir(path.dirname(privateKeyFile), { recursive: true, mode: 0o700 });
    await fs.writeFile(privateKeyFile, `${privateKey}\n`, { mode: 0o600, flag: "wx" });
  }
  return (await runWg(command, ["pubkey"], `${privateKey}\n`)).trim();
}
