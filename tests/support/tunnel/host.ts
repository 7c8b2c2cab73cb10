// Helpers for the tunnel test: commands with bounded time, tool checks, bounded waits.
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

export const REQUIRED_TOOLS = [
  { tool: "ip", args: ["-V"] },
  { tool: "wg", args: ["--version"] },
  { tool: "wireguard-go", args: ["--version"] },
  { tool: "nft", args: ["--version"] },
  { tool: "iptables-save", args: ["--version"] },
  { tool: "unbound", args: ["-V"] },
] as const;

/** Why the tunnel test cannot run here, or null when it can. */
export function tunnelUnavailableReason(extraTools: string[] = []): string | null {
  if (process.platform !== "linux") return "network namespaces need Linux";
  if (typeof process.getuid === "function" && process.getuid() !== 0)
    return "not root (network namespaces and TUN devices need root)";
  if (!fs.existsSync("/dev/net/tun")) return "no /dev/net/tun (wireguard-go needs a TUN device)";
  const tools = [...REQUIRED_TOOLS, ...extraTools.map((tool) => ({ tool, args: ["--version"] }))];
  const missing = tools
    .filter(({ tool, args }) => {
      const result = spawnSync(tool, args, { stdio: "ignore", timeout: 10_000 });
      return (result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    })
    .map(({ tool }) => tool);
  if (missing.length)
    return `missing tools: ${missing.join(", ")} (Debian: wireguard-go, wireguard-tools, iproute2, nftables, iptables, unbound, curl, bind9-dnsutils, iperf3)`;
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

/** Runs a command (no shell) with a time bound and answers how it ended, failure included. */
export function runStatus(
  argv: string[],
  options: { timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const [file, ...args] = argv;
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      file!,
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr), ms: performance.now() - started });
      },
    );
  });
}

export const inNs = (namespace: string, argv: string[]) => ["ip", "netns", "exec", namespace, ...argv];

/** A network namespace with its loopback up. */
export async function addNamespace(name: string): Promise<void> {
  await run(["ip", "netns", "add", name]);
  await run(inNs(name, ["ip", "link", "set", "lo", "up"]));
}

/** An end of a veth pair: its name and namespace (null: the root namespace), and its address. */
export interface VethEnd {
  namespace: string | null;
  name: string;
  address?: string;
}

const within = (namespace: string | null, argv: string[]) => (namespace ? inNs(namespace, argv) : argv);

/** A veth pair between two namespaces, both ends up with their addresses (IPv6 without DAD). */
export async function addVethPair(a: VethEnd, b: VethEnd, mtu = 1500): Promise<void> {
  const end = ({ namespace, name }: VethEnd) => [
    name,
    ...(namespace ? ["netns", namespace] : []),
    "mtu",
    String(mtu),
  ];
  await run(["ip", "link", "add", ...end(a), "type", "veth", "peer", "name", ...end(b)]);
  for (const { namespace, name, address } of [a, b]) {
    if (address) await addAddress(namespace, address, name);
    await run(within(namespace, ["ip", "link", "set", name, "up"]));
  }
}

export const addAddress = (namespace: string | null, cidr: string, dev: string) =>
  run(
    within(namespace, ["ip", "address", "add", cidr, "dev", dev, ...(cidr.includes(":") ? ["nodad"] : [])]),
  );

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

/** Where `ip netns exec NAME` finds files it binds over /etc (resolv.conf, unbound/). */
export const netnsEtc = (namespace: string) => path.join("/etc/netns", namespace);

/**
 * Gives a node namespace an /etc/unbound of its own, so the resolver `setup` configures there is
 * not the machine's: `ip netns exec` binds /etc/netns/NAME/unbound over /etc/unbound, so setup's
 * file lands in it and `unbound-control start|stop` reads this main file, whose pid file, log and
 * control socket are in `workDir`. Unbound runs as root here, and logs to `logFile`.
 */
export async function giveNodeItsOwnUnbound(
  namespace: string,
  workDir: string,
): Promise<{ logFile: string }> {
  const etc = path.join(netnsEtc(namespace), "unbound");
  await fsp.mkdir(path.join(etc, "unbound.conf.d"), { recursive: true });
  await fsp.mkdir(workDir, { recursive: true });
  const logFile = path.join(workDir, "unbound.log");
  const main = [
    "server:",
    '    username: ""',
    '    chroot: ""',
    `    directory: "${workDir}"`,
    `    pidfile: "${path.join(workDir, "unbound.pid")}"`,
    "    use-syslog: no",
    `    logfile: "${logFile}"`,
    "remote-control:",
    "    control-enable: yes",
    `    control-interface: "${path.join(workDir, "unbound.ctl")}"`,
    'include-toplevel: "/etc/unbound/unbound.conf.d/*.conf"',
    "",
  ].join("\n");
  await fsp.writeFile(path.join(etc, "unbound.conf"), main);
  return { logFile };
}

const pidsIn = async (namespace: string) =>
  (await run(["ip", "netns", "pids", namespace]).catch(() => "")).split("\n").filter(Boolean).map(Number);

function signal(pids: number[], name: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

/**
 * Ends what still runs in a namespace of this run (the unbound that setup starts daemonises, and
 * deleting a namespace does not end its processes), removes its /etc/netns files, then deletes it.
 */
export async function endNamespace(namespace: string): Promise<void> {
  signal(await pidsIn(namespace), "SIGTERM");
  const ended = await waitFor(
    `the processes in ${namespace} to end`,
    async () => (await pidsIn(namespace)).length === 0,
    10_000,
  ).catch(() => false);
  if (!ended) signal(await pidsIn(namespace), "SIGKILL");
  await fsp.rm(netnsEtc(namespace), { recursive: true, force: true });
  await fsp.rmdir(path.dirname(netnsEtc(namespace))).catch(() => undefined); // only when empty
  await run(["ip", "netns", "del", namespace]);
}
