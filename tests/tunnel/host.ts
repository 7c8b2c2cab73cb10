// Helpers for the tunnel test: commands with bounded time, tool checks, bounded waits.
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";

export const REQUIRED_TOOLS = [
  { tool: "ip", args: ["-V"] },
  { tool: "wg", args: ["--version"] },
  { tool: "wireguard-go", args: ["--version"] },
  { tool: "nft", args: ["--version"] },
  { tool: "iptables-save", args: ["--version"] },
] as const;

/** Why the tunnel test cannot run here, or null when it can. */
export function tunnelUnavailableReason(): string | null {
  if (process.platform !== "linux") return "network namespaces need Linux";
  if (typeof process.getuid === "function" && process.getuid() !== 0)
    return "not root (network namespaces and TUN devices need root)";
  if (!fs.existsSync("/dev/net/tun")) return "no /dev/net/tun (wireguard-go needs a TUN device)";
  const missing = REQUIRED_TOOLS.filter(({ tool, args }) => {
    const result = spawnSync(tool, args, { stdio: "ignore", timeout: 10_000 });
    return (result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
  }).map(({ tool }) => tool);
  if (missing.length)
    return `missing tools: ${missing.join(", ")} (install wireguard-go, wireguard-tools, iproute2, nftables, iptables)`;
  return null;
}

/** Runs a command (no shell) with a time bound; rejects with its stderr. */
export function run(
  argv: string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      args,
      { timeout: options.timeoutMs ?? 15_000, maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(`${argv.slice(0, 6).join(" ")} failed: ${String(stderr).trim() || error.message}`),
          );
        else resolve(String(stdout));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs every cleanup step even when some fail; returns the failures for the log. */
export async function runAll(steps: Array<() => Promise<unknown>>): Promise<string[]> {
  const failures: string[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  return failures;
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
