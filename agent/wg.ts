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
 * Applies only the difference: `wg set <iface> peer K remove …` for removals, then
 * `wg set <iface> peer K preshared-key <file> allowed-ips a,b …` for additions and changes.
 * Never `wg syncconf`, whose cost grows with every peer on the interface.
 */
export async function applyDiff(command: WgCommand, iface: string, diff: PeerDiff): Promise<void> {
  for (let start = 0; start < diff.removals.length; start += PEERS_PER_CALL) {
    const args = ["set", iface];
    for (const publicKey of diff.removals.slice(start, start + PEERS_PER_CALL))
      args.push("peer", publicKey, "remove");
    await runWg(command, args);
  }
  if (diff.upserts.length === 0) return;
  await withKeyDirectory(async (directory) => {
    for (let start = 0; start < diff.upserts.length; start += PEERS_PER_CALL) {
      const chunk: DesiredPeer[] = diff.upserts.slice(start, start + PEERS_PER_CALL);
      const args = ["set", iface];
      await Promise.all(
        chunk.map((peer, index) =>
          fs.writeFile(path.join(directory, String(start + index)), `${peer.presharedKey}\n`, {
            mode: 0o600,
          }),
        ),
      );
      chunk.forEach((peer, index) => {
        args.push(
          "peer",
          peer.publicKey,
          "preshared-key",
          path.join(directory, String(start + index)),
          "allowed-ips",
          peer.allowedIps.join(","),
        );
      });
      await runWg(command, args);
    }
  });
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
