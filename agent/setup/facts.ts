// Reads what the host holds, for plan.ts: read-only, so `--dry-run` changes nothing.
import fs from "node:fs/promises";
import path from "node:path";
import { canonicalIpAddress } from "../node-api.ts";
import { tryCommand } from "./commands.ts";
import type { FirewallFacts, IptablesFamilyFacts } from "./firewall.ts";
import { IPTABLES_CHAINS } from "./iptables-rules.ts";
import { NFT_TABLE } from "./nft-table.ts";
import type { HostFacts } from "./plan.ts";
import { UNBOUND_CONFIG, type ResolverFacts } from "./resolver.ts";
import { UNIT_NAME } from "./systemd-unit.ts";

const readText = (file: string) => fs.readFile(file, "utf8").catch(() => null);

async function onPath(tool: string): Promise<boolean> {
  for (const directory of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    if (
      await fs.access(path.join(directory, tool), fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

interface IpAddressInfo {
  flags?: string[];
  mtu?: number;
  addr_info?: Array<{ local: string; prefixlen: number; scope: string }>;
}

/** An interface's global addresses as `address/prefix`, whether it is up, its MTU; null when absent. */
async function interfaceAddresses(
  iface: string,
): Promise<{ up: boolean; mtu: number | null; addresses: string[] } | null> {
  const json = await tryCommand(["ip", "-j", "address", "show", "dev", iface]);
  const [info] = json ? (JSON.parse(json) as IpAddressInfo[]) : [];
  if (!info) return null;
  return {
    up: info.flags?.includes("UP") ?? false,
    mtu: info.mtu ?? null,
    addresses: (info.addr_info ?? [])
      .filter((address) => address.scope === "global")
      .map((address) => `${address.local}/${address.prefixlen}`),
  };
}

async function iptablesFamily(tool: "iptables" | "ip6tables"): Promise<IptablesFamilyFacts> {
  const facts = { rules: {}, jumps: {} } as IptablesFamilyFacts;
  for (const { table, chain, from } of IPTABLES_CHAINS) {
    const listing = await tryCommand([tool, "-t", table, "-S", chain]);
    facts.rules[chain] =
      listing === null ? null : listing.split("\n").filter((line) => line.startsWith("-A "));
    facts.jumps[chain] = (await tryCommand([tool, "-t", table, "-C", from, "-j", chain])) !== null;
  }
  return facts;
}

export async function readFirewall(prefer: "nft" | "iptables" | undefined): Promise<FirewallFacts> {
  const tool = prefer ?? ((await onPath("nft")) ? "nft" : (await onPath("iptables")) ? "iptables" : null);
  if (tool === null) throw new Error("neither nft (nftables) nor iptables was found: install nftables");
  if (tool === "nft") return { tool, table: await tryCommand(["nft", "list", "table", "inet", NFT_TABLE]) };
  return { tool, v4: await iptablesFamily("iptables"), v6: await iptablesFamily("ip6tables") };
}

const isUniqueLocal = (address: string) => /^f[cd]/i.test(address);

/**
 * Whether peers' IPv6 can leave: an egress with an IPv6 default route and a global (not
 * unique-local) address to masquerade to. Without one, NAT66 would send them into silence.
 */
async function ipv6Egress(egress: string[]): Promise<boolean> {
  const json = await tryCommand(["ip", "-j", "-6", "route", "show", "default"]);
  const routes = json
    ? (JSON.parse(json) as Array<{ dev?: string; nexthops?: Array<{ dev?: string }> }>)
    : [];
  const devices = new Set(
    routes.flatMap((route) => [route.dev, ...(route.nexthops ?? []).map((hop) => hop.dev)]),
  );
  for (const iface of egress.filter((name) => devices.has(name))) {
    const addresses = (await interfaceAddresses(iface))?.addresses ?? [];
    if (addresses.some((cidr) => cidr.includes(":") && !isUniqueLocal(cidr))) return true;
  }
  return false;
}

/** Whether systemd runs this host: it made /run/systemd/system at boot (its own `sd_booted()` test). */
export async function systemdRunning(): Promise<boolean> {
  return (await fs.stat("/run/systemd/system").catch(() => null))?.isDirectory() ?? false;
}

/** An agent process running `bundle` (not a setup or uninstall), and when it started. */
export interface RunningAgent {
  pid: number;
  startedAt: Date;
}

/** Agents that run `bundle` now, found in /proc by their command line. */
export async function runningAgents(bundle: string): Promise<RunningAgent[]> {
  const found: RunningAgent[] = [];
  const bootSeconds = Number((await readText("/proc/stat"))?.match(/^btime (\d+)$/m)?.[1] ?? NaN);
  for (const entry of await fs.readdir("/proc").catch(() => [])) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const argv = (await readText(`/proc/${pid}/cmdline`))?.split("\0").filter(Boolean) ?? [];
    const at = argv.findIndex((word) => word === bundle);
    if (at < 0 || ["setup", "uninstall"].includes(argv[at + 1] ?? "")) continue;
    // Field 22 of /proc/PID/stat, after the parenthesised name: its start in clock ticks after boot (USER_HZ, 100).
    const stat = (await readText(`/proc/${pid}/stat`)) ?? "";
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    if (!Number.isFinite(ticks) || !Number.isFinite(bootSeconds)) continue;
    found.push({ pid, startedAt: new Date((bootSeconds + ticks / 100) * 1000) });
  }
  return found;
}

async function readResolver(): Promise<ResolverFacts> {
  const systemd = await systemdRunning();
  const installed = await onPath("unbound");
  const succeeds = async (argv: string[]) => (await tryCommand(argv)) !== null;
  return {
    installed,
    configText: await readText(UNBOUND_CONFIG),
    systemd,
    running: systemd
      ? await succeeds(["systemctl", "is-active", "--quiet", "unbound"])
      : installed && (await succeeds(["unbound-control", "status"])),
    enabled: systemd && (await succeeds(["systemctl", "is-enabled", "--quiet", "unbound"])),
  };
}

async function kernelWireGuard(): Promise<boolean> {
  if ((await fs.stat("/sys/module/wireguard").catch(() => null)) !== null) return true;
  return (await tryCommand(["modprobe", "--dry-run", "--quiet", "wireguard"])) !== null;
}

const sysctlFile = (key: string) =>
  path.join("/proc/sys", key.includes("/") ? key : key.replaceAll(".", "/"));

export async function readFacts(options: {
  iface: string;
  egress: string[];
  sysctlKeys: string[];
  firewall?: "nft" | "iptables";
  unitPath: string | null;
  recordFile: string;
}): Promise<HostFacts> {
  const { iface } = options;
  const present = await interfaceAddresses(iface);
  const listenPort = present ? await tryCommand(["wg", "show", iface, "listen-port"]) : null;
  const sysctl: HostFacts["sysctl"] = {};
  for (const key of options.sysctlKeys) sysctl[key] = (await readText(sysctlFile(key)))?.trim() ?? null;
  const unit = options.unitPath
    ? {
        text: await readText(options.unitPath),
        enabled: (await tryCommand(["systemctl", "is-enabled", "--quiet", UNIT_NAME])) !== null,
        active: (await tryCommand(["systemctl", "is-active", "--quiet", UNIT_NAME])) !== null,
      }
    : null;
  return {
    kernelWireGuard: present ? false : await kernelWireGuard(),
    iface: {
      exists: present !== null,
      up: present?.up ?? false,
      addresses: present?.addresses ?? [],
      listenPort: listenPort && Number(listenPort) > 0 ? Number(listenPort) : null,
      mtu: present?.mtu ?? null,
    },
    ipv6Egress: await ipv6Egress(options.egress),
    sysctl,
    firewall: await readFirewall(options.firewall),
    resolver: await readResolver(),
    unit,
    recordText: await readText(options.recordFile),
  };
}

const PRIVATE_RANGES = [
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
  /^169\.254\./,
  /^127\./,
  /^f[cd]/,
  /^fe[89ab]/,
  /^::1$/,
];

/** The egress interfaces' public addresses: what this node's traffic leaves from when nothing NATs it. */
export async function publicEgressAddresses(egress: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const iface of egress) {
    for (const cidr of (await interfaceAddresses(iface))?.addresses ?? []) {
      const address = canonicalIpAddress(cidr.split("/")[0]!);
      if (address && !PRIVATE_RANGES.some((range) => range.test(address))) found.push(address);
    }
  }
  return [...new Set(found)];
}
