// `naijalink-agent setup` and `uninstall`: read the host, plan the difference, print it, and
// (without --dry-run) apply it step by step.
import fs from "node:fs/promises";
import path from "node:path";
import { ControlPlane } from "../control-plane.ts";
import type { NodeServer } from "../node-api.ts";
import { applyStep, formatStep, shellWord } from "./commands.ts";
import { publicEgressAddresses, readFacts, runningAgents, systemdRunning } from "./facts.ts";
import { acceptRaKey, buildSetupPlan, buildUninstallPlan, parseRecord, type Step } from "./plan.ts";
import { agentUnit, UNIT_NAME } from "./systemd-unit.ts";

export interface SetupOptions {
  apiUrl: string;
  nodeToken: string;
  tokenFile: string | undefined;
  iface: string;
  egress: string[];
  listenPort: number | undefined;
  privateKeyFile: string;
  exitAddresses: string[] | undefined;
  /** Where the agent answers the /check zone (0: it does not), for the resolver's stub zone. */
  dnsCheckPort: number;
  recordFile: string;
  /** Where the unit goes, or null with --no-systemd. */
  systemdDir: string | null;
  firewall: "nft" | "iptables" | undefined;
  dryRun: boolean;
  print: (line: string) => void;
  /** `--yes`: take the exit address the control plane sees without asking. */
  assumeYes?: boolean;
  /** Asks the operator a yes/no question; undefined where nobody can answer (no terminal). */
  confirm?: (question: string) => Promise<boolean>;
}

export class SetupError extends Error {}

const INTERFACE_NAME = /^[A-Za-z0-9_.@-]{1,15}$/;

async function serverOf(options: SetupOptions): Promise<NodeServer> {
  try {
    const answer = await new ControlPlane(options.apiUrl, options.nodeToken).fetchPeers(null);
    if (answer === "unchanged") throw new Error("the control plane answered 304 to a first request");
    return answer.server;
  } catch (error) {
    const record = parseRecord(await fs.readFile(options.recordFile, "utf8").catch(() => null));
    if (!record) throw new SetupError(`cannot learn this server's addresses: ${(error as Error).message}`);
    options.print(
      `# the control plane did not answer (${(error as Error).message}): using the addresses of the last setup`,
    );
    return record.server;
  }
}

/**
 * The egress's public addresses; when it has no public IPv4 (a cloud host behind NAT), the
 * address the control plane sees this node's requests come from is offered as well.
 */
async function discoverExitAddresses(options: SetupOptions): Promise<string[]> {
  const onEgress = await publicEgressAddresses(options.egress);
  if (onEgress.some((address) => address.includes("."))) return onEgress;
  let seen: string;
  try {
    seen = await new ControlPlane(options.apiUrl, options.nodeToken).whoami();
  } catch (error) {
    options.print(`# could not ask the control plane which address it sees: ${(error as Error).message}`);
    return onEgress;
  }
  const offered = [...new Set([seen, ...onEgress])];
  options.print(
    `# ${options.egress.join(",")} has no public IPv4 (NAT?): the control plane sees this node's requests from ${seen}`,
  );
  const question = `Use ${offered.join(", ")} as this node's exit address${offered.length > 1 ? "es" : ""} (for /check)?`;
  const accepted = options.assumeYes || (!options.dryRun && (await options.confirm?.(question)));
  if (accepted) return offered;
  options.print(
    options.dryRun
      ? `# setup would offer ${offered.join(", ")} as the exit address (--yes takes it, --exit-addresses overrides it)`
      : `# not taken: pass --yes to take ${offered.join(", ")}, or --exit-addresses IP[,IP] with the address this node's traffic leaves from`,
  );
  return onEgress;
}

async function run(steps: Step[], options: { dryRun: boolean; print: (line: string) => void }) {
  for (const step of steps) {
    options.print(formatStep(step));
    if (options.dryRun) continue;
    try {
      await applyStep(step);
    } catch (error) {
      // Every step is planned from what the host holds, and the record goes last: a re-run carries on.
      throw new SetupError(
        `${(error as Error).message}\n(stopped at: ${step.why}; run the same command again once that is fixed: it carries on from here)`,
      );
    }
  }
}

export async function setup(options: SetupOptions): Promise<{ changed: number; exitAddresses: string[] }> {
  const { iface, egress } = options;
  for (const name of [iface, ...egress]) {
    if (!INTERFACE_NAME.test(name)) throw new SetupError(`${JSON.stringify(name)} is not an interface name`);
  }
  if (egress.length === 0)
    throw new SetupError("--egress is needed: the interface the peers' traffic leaves by, such as eth0");
  if (egress.includes(iface)) throw new SetupError("--egress must not be the WireGuard interface");
  const server = await serverOf(options);
  if (options.listenPort !== undefined && options.listenPort !== server.listenPort) {
    throw new SetupError(
      `--listen-port ${options.listenPort} differs from the port in this server's endpoint (${server.listenPort}): change one of them`,
    );
  }
  const exitAddresses = options.exitAddresses ?? (await discoverExitAddresses(options));

  const bundle = path.resolve(process.argv[1] ?? "");
  const tokenFile = options.tokenFile ? path.resolve(options.tokenFile) : undefined;
  const common = [
    ...["--api", options.apiUrl],
    ...(tokenFile ? ["--token-file", tokenFile] : []),
    ...["--interface", iface, "--dns-check-port", String(options.dnsCheckPort)],
  ];
  const agentArgs = [
    ...common,
    "--private-key-file",
    path.resolve(options.privateKeyFile),
    "--state-file",
    path.resolve(options.recordFile),
    ...(exitAddresses.length ? ["--exit-addresses", exitAddresses.join(",")] : []),
  ];
  // Asked for a unit on a host systemd does not run (a container, another init): setup does the
  // rest and prints the agent's command instead of stopping at `systemctl daemon-reload`.
  const systemd = options.systemdDir !== null && (await systemdRunning());
  if (options.systemdDir !== null && !systemd)
    options.print(
      "# systemd does not run this host (no /run/systemd/system): no service unit; the agent's command is printed at the end",
    );
  let unit: { path: string; text: string } | null = null;
  if (systemd) {
    if (!tokenFile)
      throw new SetupError("the service unit reads the node token from a file: pass --token-file");
    if (!bundle.endsWith(".mjs"))
      throw new SetupError("run setup from the bundled agent (npm run build:agent), or pass --no-systemd");
    unit = {
      path: path.join(options.systemdDir!, UNIT_NAME),
      text: agentUnit({
        node: process.execPath,
        bundle,
        setupArgs: [
          ...common,
          "--listen-port",
          String(server.listenPort),
          "--egress",
          egress.join(","),
          "--state-file",
          path.resolve(options.recordFile),
          ...(options.firewall ? ["--firewall", options.firewall] : []),
        ],
        agentArgs,
      }),
    };
  }

  const record = parseRecord(await fs.readFile(options.recordFile, "utf8").catch(() => null));
  const sysctlKeys = [
    "net.ipv4.ip_forward",
    "net.ipv6.conf.all.forwarding",
    ...egress.map(acceptRaKey),
    ...Object.keys(record?.sysctlBefore ?? {}),
  ];
  const facts = await readFacts({
    iface,
    egress,
    sysctlKeys: [...new Set(sysctlKeys)],
    firewall: options.firewall,
    unitPath: unit?.path ?? null,
    recordFile: options.recordFile,
  });
  const { steps } = buildSetupPlan(facts, {
    iface,
    egress,
    listenPort: server.listenPort,
    server,
    recordFile: options.recordFile,
    secretFiles: [
      path.resolve(options.privateKeyFile),
      ...(options.tokenFile ? [path.resolve(options.tokenFile)] : []),
    ],
    dnsCheckPort: options.dnsCheckPort,
    unit,
  });
  options.print(
    `# naijalink-agent setup${options.dryRun ? " --dry-run: nothing is changed" : ""} (server ${server.name})`,
  );
  await run(steps, options);
  options.print(
    steps.length === 0
      ? "# nothing to change: this host is set up"
      : `# ${steps.length} change(s)${options.dryRun ? " to make" : " made"}`,
  );
  if (!facts.ipv6Egress)
    options.print(
      "# no IPv6 egress (an IPv6 default route and a global address): peers' IPv6 is refused at once, so their apps use IPv4",
    );
  options.print(
    exitAddresses.length
      ? `# exit addresses (reported by the agent, shown by /check): ${exitAddresses.join(", ")}`
      : "# no public address on the egress interface: pass --exit-addresses with the address this node's traffic leaves from",
  );
  await reportOlderAgents(bundle, systemd, options.print);
  // Under systemd (ExecStartPre sets INVOCATION_ID) the unit starts the agent next: nothing to tell.
  if (!unit && !process.env.INVOCATION_ID) {
    if (!tokenFile)
      options.print("# the agent needs its node token: add --token-file FILE to the command below");
    options.print(
      "# without a service unit, start the agent yourself and keep it running (run this setup again after each boot, before it):",
    );
    options.print(
      bundle.endsWith(".mjs")
        ? [process.execPath, bundle, ...agentArgs].map(shellWord).join(" ")
        : ["npm", "run", "agent", "--", ...agentArgs].map(shellWord).join(" "),
    );
  }
  return { changed: steps.length, exitAddresses };
}

/** Says when an agent running now started before its bundle was replaced (an upgrade not yet restarted). */
async function reportOlderAgents(bundle: string, systemd: boolean, print: (line: string) => void) {
  const written = (await fs.stat(bundle).catch(() => null))?.mtime;
  if (!written || !bundle.endsWith(".mjs")) return;
  for (const agent of await runningAgents(bundle)) {
    if (agent.startedAt >= written) continue;
    print(
      `# the agent running now (pid ${agent.pid}, started ${agent.startedAt.toISOString()}) is older than ${bundle} (written ${written.toISOString()}): ${
        systemd
          ? `restart it to run the new one: systemctl restart ${UNIT_NAME}`
          : `stop it (kill ${agent.pid}) and start it again with the command below`
      }`,
    );
  }
}

export async function uninstall(options: {
  iface: string;
  recordFile: string;
  systemdDir: string | null;
  firewall: "nft" | "iptables" | undefined;
  dryRun: boolean;
  print: (line: string) => void;
}): Promise<{ changed: number }> {
  const record = parseRecord(await fs.readFile(options.recordFile, "utf8").catch(() => null));
  const unitPath = record
    ? record.unitFile
    : options.systemdDir === null
      ? null
      : path.join(options.systemdDir, UNIT_NAME);
  const systemd = await systemdRunning();
  if (unitPath && !systemd)
    options.print("# systemd does not run this host (no /run/systemd/system): no systemctl step");
  const facts = await readFacts({
    iface: record?.iface ?? options.iface,
    egress: [],
    sysctlKeys: Object.keys(record?.sysctlBefore ?? {}),
    firewall: options.firewall,
    unitPath,
    recordFile: options.recordFile,
  });
  const steps = buildUninstallPlan(facts, {
    iface: options.iface,
    recordFile: options.recordFile,
    unitPath,
    systemd,
  });
  options.print(`# naijalink-agent uninstall${options.dryRun ? " --dry-run: nothing is changed" : ""}`);
  if (!record)
    options.print(
      `# no setup record at ${options.recordFile}: only the rules and unit named for NaijaLink are removed`,
    );
  await run(steps, options);
  options.print(
    steps.length === 0
      ? "# nothing to remove"
      : `# ${steps.length} change(s)${options.dryRun ? " to make" : " made"}`,
  );
  // An agent started by hand (no unit) outlives its token and key: say which process to stop.
  const bundle = path.resolve(process.argv[1] ?? "");
  if (!systemd && bundle.endsWith(".mjs"))
    for (const agent of await runningAgents(bundle))
      options.print(`# an agent still runs (pid ${agent.pid}): stop it with kill ${agent.pid}`);
  return { changed: steps.length };
}
