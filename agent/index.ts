// The NaijaLink VPN node agent. Runs on each VPN server beside its WireGuard interface, as one
// bundled file (`npm run build:agent` → build/agent/naijalink-agent.mjs):
//   node naijalink-agent.mjs setup --api https://naijalink.example --token-file /etc/naijalink/node-token \
//     --interface wg0 --listen-port 51820 --egress eth0      (prepares the host, installs the unit)
//   node naijalink-agent.mjs --api https://naijalink.example --token-file /etc/naijalink/node-token --interface wg0
// or `npm run agent -- …` from the repository. Flags win over the environment (NAIJALINK_API,
// NAIJALINK_NODE_TOKEN_FILE, NAIJALINK_NODE_TOKEN, NAIJALINK_INTERFACE, NAIJALINK_PRIVATE_KEY_FILE,
// NAIJALINK_EXIT_ADDRESSES, NAIJALINK_METRICS_PORT, NAIJALINK_DNS_CHECK_PORT).
// It needs `wg`, Node built-ins, zod (for the node API contract, agent/node-api.ts), prom-client
// (its metrics on 127.0.0.1, agent/metrics.ts) and dns-packet (the /check zone, agent/dns-check.ts):
// no app code, no React Router.
import fs from "node:fs";
import { createInterface } from "node:readline/promises";
import { jsonLog, startAgent } from "./agent.ts";
import { parseCommandLine, usageError } from "./command-line.ts";
import { DEFAULT_DNS_CHECK_PORT, serveDnsChecks } from "./dns-check.ts";
import { createAgentMetrics, DEFAULT_METRICS_PORT, serveAgentMetrics } from "./metrics.ts";
import { exitAddressesSchema, MAX_WAIT_SECONDS } from "./node-api.ts";
import { SetupError, setup, uninstall } from "./setup/setup.ts";
import { STREAMING_CHECK_LIMITS } from "./streaming-checks.ts";

const usage = `Usage: naijalink-agent [run] --api URL (--token-file FILE | --token TOKEN) [--interface wg0]
             [--private-key-file /var/lib/naijalink-agent/private.key] [--wg wg]
             [--wait-seconds 25] [--poll-ms 1000] [--reconcile-ms 60000] [--status-ms 30000]
             [--streaming-check-ms 900000] how often the streaming services staff list are fetched from here
             [--exit-addresses IP[,IP]]   the public addresses this node's traffic leaves from (for /check)
             [--metrics-port 9586]        Prometheus metrics on 127.0.0.1:PORT/metrics (0 = off)
             [--dns-check-port 9553]      answers the /check zone for the node's resolver on 127.0.0.1:PORT (0 = off)
             [--state-file /var/lib/naijalink-agent/setup.json]  setup's record: with it the agent applies the
                                          server's MTU, port redirects and resolver as they change
       naijalink-agent setup --api URL --token-file FILE --interface wg0 --egress eth0[,eth1]
             [--listen-port 51820] [--exit-addresses IP[,IP]] [--private-key-file FILE] [--dns-check-port 9553]
             [--state-file /var/lib/naijalink-agent/setup.json] [--firewall nft|iptables]
             [--no-systemd | --systemd-dir /etc/systemd/system] [--dry-run] [--yes]
             creates the interface (its addresses and MTU), forwarding, firewall, NAT, port
             redirects, the resolver (unbound) and the agent's service unit; behind NAT it offers
             the address the control plane sees as the exit address (--yes takes it); where systemd
             does not run (no /run/systemd/system) it installs no unit and prints the agent's command
       naijalink-agent uninstall [--state-file FILE] [--no-systemd | --systemd-dir DIR] [--dry-run]
             removes exactly what setup added`;

function fail(message: string): never {
  usageError(message, usage);
}

const { values, positionals } = parseCommandLine(usage, process.argv.slice(2), {
  api: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  interface: { type: "string" },
  "private-key-file": { type: "string" },
  wg: { type: "string" },
  "wait-seconds": { type: "string" },
  "poll-ms": { type: "string" },
  "reconcile-ms": { type: "string" },
  "status-ms": { type: "string" },
  "streaming-check-ms": { type: "string" },
  "exit-addresses": { type: "string" },
  egress: { type: "string" },
  "listen-port": { type: "string" },
  "state-file": { type: "string" },
  firewall: { type: "string" },
  "no-systemd": { type: "boolean" },
  "systemd-dir": { type: "string" },
  "dry-run": { type: "boolean" },
  "metrics-port": { type: "string" },
  "dns-check-port": { type: "string" },
  yes: { type: "boolean" },
});
const [command = "run", ...extra] = positionals;
if (!["run", "setup", "uninstall"].includes(command) || extra.length > 0)
  fail(`unknown command: ${positionals.join(" ")}`);
const hostFlags = [
  "yes",
  "egress",
  "listen-port",
  "firewall",
  "no-systemd",
  "systemd-dir",
  "dry-run",
] as const;
const misplaced = hostFlags.find((flag) => command === "run" && values[flag] !== undefined);
if (misplaced) fail(`--${misplaced} belongs to setup or uninstall`);

const env = process.env;
const iface = values.interface ?? env.NAIJALINK_INTERFACE ?? "wg0";
const recordFile = values["state-file"] ?? "/var/lib/naijalink-agent/setup.json";
const systemdDir = values["no-systemd"] ? null : (values["systemd-dir"] ?? "/etc/systemd/system");
const firewall = values.firewall;
if (firewall !== undefined && firewall !== "nft" && firewall !== "iptables")
  fail("--firewall must be nft or iptables");
const print = (line: string) => process.stdout.write(`${line}\n`);

async function askYesNo(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return !/^n/i.test((await prompt.question(`${question} [Y/n] `)).trim());
  } finally {
    prompt.close();
  }
}

/** Setup and uninstall end the process: 0 when done, 1 with the reason when a step failed. */
async function hostCommand(work: () => Promise<unknown>): Promise<never> {
  try {
    await work();
    process.exit(0);
  } catch (error) {
    const reason = error instanceof SetupError ? error.message : `failed: ${(error as Error).message}`;
    process.stderr.write(`naijalink-agent ${command}: ${reason}\n`);
    process.exit(1);
  }
}
if (command === "uninstall") {
  await hostCommand(() =>
    uninstall({ iface, recordFile, systemdDir, firewall, dryRun: values["dry-run"] ?? false, print }),
  );
}

const apiUrl = values.api ?? env.NAIJALINK_API;
if (!apiUrl || !/^https?:\/\//.test(apiUrl))
  fail("--api must be the control plane's URL, such as https://naijalink.example");
const tokenFile = values["token-file"] ?? env.NAIJALINK_NODE_TOKEN_FILE;
let nodeToken = values.token ?? env.NAIJALINK_NODE_TOKEN;
if (!nodeToken && tokenFile) {
  try {
    nodeToken = fs.readFileSync(tokenFile, "utf8").trim();
  } catch {
    fail(`cannot read the node token file ${tokenFile}`);
  }
}
if (!nodeToken)
  fail("a node token is needed: --token-file FILE (printed once by `npm run vpn -- add-server`)");

function integer(
  name:
    | "wait-seconds"
    | "poll-ms"
    | "reconcile-ms"
    | "status-ms"
    | "streaming-check-ms"
    | "metrics-port"
    | "dns-check-port",
  fallback: number,
  [min, max]: [number, number],
  raw = values[name],
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) fail(`--${name} must be ${min}..${max}`);
  return value;
}
const milliseconds = (
  name: "poll-ms" | "reconcile-ms" | "status-ms" | "streaming-check-ms",
  fallback: number,
) => integer(name, fallback, [100, 3_600_000]);

/** Set by the operator, never looked up on the internet: the node may not be allowed out to ask. */
function exitAddresses(): string[] | undefined {
  const raw = values["exit-addresses"] ?? env.NAIJALINK_EXIT_ADDRESSES;
  if (raw === undefined || raw.trim() === "") return undefined;
  const parsed = exitAddressesSchema.safeParse(raw.split(",").map((address) => address.trim()));
  if (!parsed.success) fail(`--exit-addresses: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

const privateKeyFile =
  values["private-key-file"] ?? env.NAIJALINK_PRIVATE_KEY_FILE ?? "/var/lib/naijalink-agent/private.key";

const dnsCheckPort = integer(
  "dns-check-port",
  DEFAULT_DNS_CHECK_PORT,
  [0, 65535],
  values["dns-check-port"] ?? env.NAIJALINK_DNS_CHECK_PORT,
);

if (command === "setup") {
  const egress = (values.egress ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const listenPort = values["listen-port"] === undefined ? undefined : Number(values["listen-port"]);
  if (listenPort !== undefined && (!Number.isInteger(listenPort) || listenPort < 1 || listenPort > 65_535))
    fail("--listen-port must be 1..65535");
  await hostCommand(() =>
    setup({
      apiUrl,
      nodeToken: nodeToken!,
      tokenFile,
      iface,
      egress,
      listenPort,
      privateKeyFile,
      exitAddresses: exitAddresses(),
      dnsCheckPort,
      recordFile,
      systemdDir,
      firewall,
      dryRun: values["dry-run"] ?? false,
      print,
      assumeYes: values.yes ?? false,
      confirm: process.stdin.isTTY ? askYesNo : undefined,
    }),
  );
}
const metricsPort = integer(
  "metrics-port",
  DEFAULT_METRICS_PORT,
  [0, 65535],
  values["metrics-port"] ?? env.NAIJALINK_METRICS_PORT,
);
const metrics = metricsPort ? createAgentMetrics() : undefined;
const metricsServer = metrics
  ? serveAgentMetrics(metrics, { port: metricsPort }).catch((error: unknown) => {
      // The VPN matters more than its figures: the agent runs on without them.
      jsonLog("error", "metrics port unavailable; running without metrics", {
        port: metricsPort,
        reason: (error as Error).message,
      });
      return undefined;
    })
  : undefined;

const dnsCheck = dnsCheckPort
  ? await serveDnsChecks({ port: dnsCheckPort }).catch((error: unknown) => {
      jsonLog("error", "DNS check port unavailable; /check cannot see this node's resolver", {
        port: dnsCheckPort,
        reason: (error as Error).message,
      });
      return undefined;
    })
  : undefined;

const agent = startAgent({
  apiUrl,
  nodeToken,
  iface,
  privateKeyFile,
  wg: { argv: (values.wg ?? "wg").split(" ").filter(Boolean) },
  waitSeconds: integer("wait-seconds", MAX_WAIT_SECONDS, [0, MAX_WAIT_SECONDS]),
  pollMs: milliseconds("poll-ms", 1_000),
  reconcileMs: milliseconds("reconcile-ms", 60_000),
  statusMs: milliseconds("status-ms", 30_000),
  streamingCheckMs: milliseconds("streaming-check-ms", STREAMING_CHECK_LIMITS.intervalMs),
  exitAddresses: exitAddresses(),
  log: jsonLog,
  metrics,
  dnsCheck,
  // Setup's record: the egress and firewall the agent needs to apply the server's settings itself.
  nodeSettings: { recordFile },
});

agent.ready.catch(() => process.exit(1));
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    jsonLog("info", "stopping", { signal });
    void agent
      .stop()
      .then(async () => {
        await (await metricsServer)?.close();
        await dnsCheck?.close();
      })
      .then(() => process.exit(0));
  });
}
