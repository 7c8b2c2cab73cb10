// A real WireGuard tunnel through the product, in network namespaces of its own (each of the tunnel
// tests exit-setup, tunnel-traffic and peer-changes builds one, through exit-world.ts):
//
//   root namespace ── veth 198.51.100.1/30 ─┐   (the control plane: the built app on 198.51.100.1)
//                                           │
//   client ── veth 192.0.2.2/24 ──── 192.0.2.1/24 ── exit ── 203.0.113.1/24 ──── 203.0.113.80/24 ── internet
//   wireguard-go from the downloaded          the bundled agent: `setup`           HTTP echo of the
//   .conf; default routes into the tunnel     then the agent itself                caller's address
//
// The exit is prepared by what an operator runs, the bundled agent's `setup --no-systemd`
// (interface, addresses, forwarding, NAT; decision 080): this module only makes the namespaces,
// their links and the internet host. The agent then runs inside the exit namespace exactly as on
// a VPN host and reaches the app over the 198.51.100.0/30 link. Pools: 10.99.0.0/24 and
// fd99::/64. See docs/decisions/042. Both links are egress, so tunnel traffic to the app leaves
// as the exit's 198.51.100.2, which the agent reports as its exit address: /check through the
// tunnel says connected (decision 069).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { buildAgent } from "../../../scripts/build-agent.js";
import { startTestServer, type TestServer } from "../app.ts";
import {
  addNamespace,
  addVethPair,
  endNamespace,
  giveNodeItsOwnUnbound,
  inNs,
  run,
  runAll,
  waitFor,
} from "./host.ts";

export const ROOT_ADDRESS = "198.51.100.1";
export const EXIT_CONTROL_ADDRESS = "198.51.100.2";
export const EXIT_PUBLIC = "192.0.2.1";
export const CLIENT_PUBLIC = "192.0.2.2";
export const EXIT_INET = "203.0.113.1";
export const INTERNET = "203.0.113.80";
export const POOL_V4 = "10.99.0.0/24";
export const POOL_V6 = "fd99::/64";
export const OTHER_LINK = { exit: "198.18.0.1", other: "198.18.0.2" };

const wgEnv = { ...process.env, WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" };

/** One `Name = value` line of a downloaded .conf. */
export function fieldOf(text: string, name: string): string {
  const match = new RegExp(`^${name}\\s*=\\s*(.+)$`, "m").exec(text);
  if (!match) throw new Error(`the config has no ${name}`);
  return match[1]!.trim();
}

/** The .conf as `wg setconf` takes it: wg-quick's own fields (Address, DNS) left out. */
export function setconfText(text: string): string {
  const field = (name: string) => fieldOf(text, name);
  return [
    "[Interface]",
    `PrivateKey = ${field("PrivateKey")}`,
    "",
    "[Peer]",
    `PublicKey = ${field("PublicKey")}`,
    `PresharedKey = ${field("PresharedKey")}`,
    `Endpoint = ${field("Endpoint")}`,
    `AllowedIPs = ${field("AllowedIPs")}`,
    `PersistentKeepalive = ${field("PersistentKeepalive")}`,
    "",
  ].join("\n");
}

export function secretsOf(text: string): string[] {
  return [fieldOf(text, "PrivateKey"), fieldOf(text, "PresharedKey")];
}

export class ExitNetwork {
  readonly id = process.pid % 100_000;
  readonly ns = {
    exit: `nl-exit-${this.id}`,
    client: `nl-client-${this.id}`,
    inet: `nl-inet-${this.id}`,
    /** A second customer, reaching the exit over a link of its own: peers must not reach each other. */
    other: `nl-other-${this.id}`,
  };
  readonly link = {
    root: `nlr${this.id}`, // root side of the control link
    exitRoot: `nler${this.id}`,
    client: `nlc${this.id}`,
    exitClient: `nlec${this.id}`,
    exitInet: `nlei${this.id}`,
    inet: `nli${this.id}`,
    exitWg: `nlwe${this.id}`,
    clientWg: `nlwc${this.id}`,
    other: `nlo${this.id}`,
    exitOther: `nleo${this.id}`,
    otherWg: `nlwo${this.id}`,
  };
  /** The VPN server the CLI registers for the exit. */
  readonly serverName = `tunnel-${this.id}`;
  private started: TestServer | undefined;
  apiUrl = "";
  workDir = "";
  readonly children: ChildProcess[] = [];
  agentOutput = "";
  agent: ChildProcess | undefined;
  bundle = "";
  setupArgs: string[] = [];
  tokenFile = "";
  /** The exit host's rules, addresses and forwarding before setup: uninstall must restore them. */
  exitBeforeSetup = "";

  /** Where setup records what it changed, for uninstall. */
  get stateFile(): string {
    return path.join(this.workDir, "exit", "setup.json");
  }

  get app(): TestServer {
    if (!this.started) throw new Error("the tunnel's world is not set up");
    return this.started;
  }

  start(argv: string[], options: { env?: NodeJS.ProcessEnv; collect?: (text: string) => void } = {}) {
    const child = spawn(argv[0]!, argv.slice(1), {
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => options.collect?.(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => options.collect?.(chunk.toString()));
    this.children.push(child);
    return child;
  }

  /** GET an echo server (the internet host unless told) from a namespace; the body is the address it saw, or null. */
  async probe(
    timeoutSeconds = 2,
    from = this.ns.client,
    target = `${INTERNET}:8080`,
  ): Promise<string | null> {
    const script = `fetch("http://${target}/",{signal:AbortSignal.timeout(${timeoutSeconds * 1000})}).then(r=>r.text()).then(t=>process.stdout.write(t),()=>process.exit(3))`;
    try {
      return (
        await run(inNs(from, [process.execPath, "-e", script]), {
          timeoutMs: timeoutSeconds * 1000 + 5000,
        })
      ).trim();
    } catch {
      return null;
    }
  }

  /** An echo server listening on `address:8080` in a namespace. */
  async startEcho(namespace: string, address: string, what: string) {
    const echo = `require("http").createServer((q,s)=>s.end(q.socket.remoteAddress)).listen(8080,"${address}",()=>console.log("listening"))`;
    let output = "";
    this.start(inNs(namespace, [process.execPath, "-e", echo]), { collect: (text) => (output += text) });
    await waitFor(what, async () => output.includes("listening"), 10_000);
  }

  /** The bundled agent inside the exit namespace, as an operator runs it on a VPN host. */
  bundled(args: string[]) {
    return run(inNs(this.ns.exit, [process.execPath, this.bundle, ...args]), { timeoutMs: 60_000 });
  }

  /**
   * What setup touches on the exit host, as text: rules, addresses, links, kernel settings. (Not
   * `wg show all`: wireguard-go's sockets in the shared /var/run/wireguard list every namespace's.)
   */
  async exitHostState(): Promise<string> {
    const exit = this.ns.exit;
    const withoutComments = (text: string) =>
      text
        .split("\n")
        .filter((line) => !line.startsWith("#"))
        .join("\n");
    const sysctl = [
      "net.ipv4.ip_forward",
      "net.ipv6.conf.all.forwarding",
      `net.ipv6.conf.${this.link.exitInet}.accept_ra`,
    ];
    return [
      await run(inNs(exit, ["nft", "list", "ruleset"])),
      withoutComments(await run(inNs(exit, ["iptables-save"]))),
      withoutComments(await run(inNs(exit, ["ip6tables-save"]))),
      await run(inNs(exit, ["ip", "-brief", "address"])),
      await run(inNs(exit, ["ip", "-brief", "link"])),
      await run(inNs(exit, ["sysctl", ...sysctl])),
      await run(inNs(exit, ["ls", "-A", "/etc/unbound/unbound.conf.d"])),
    ].join("\n---\n");
  }

  /** Configures a client namespace from a downloaded .conf alone, as wg-quick would. */
  async bringUpClient(namespace: string, wgLink: string, text: string) {
    const field = (name: string) => fieldOf(text, name);
    const confFile = path.join(this.workDir, `${wgLink}.conf`);
    await fs.writeFile(confFile, setconfText(text), { mode: 0o600 });
    this.start(inNs(namespace, ["wireguard-go", "-f", wgLink]), { env: wgEnv });
    await waitFor("wireguard-go on the client", () => run(inNs(namespace, ["wg", "show", wgLink])), 10_000);
    // wg's own parser accepts the downloaded config (setconf fails on any bad key or field).
    await run(inNs(namespace, ["wg", "setconf", wgLink, confFile]));
    for (const address of field("Address").split(",")) {
      await run(inNs(namespace, ["ip", "addr", "add", address.trim(), "dev", wgLink]));
    }
    await run(inNs(namespace, ["ip", "link", "set", wgLink, "up"]));
    for (const allowed of field("AllowedIPs")
      .split(",")
      .map((value) => value.trim())) {
      const family = allowed.includes(":") ? "-6" : "-4";
      const destination = allowed === "0.0.0.0/0" || allowed === "::/0" ? "default" : allowed;
      await run(inNs(namespace, ["ip", family, "route", "add", destination, "dev", wgLink]));
    }
  }

  async exitPeers(): Promise<string[]> {
    const dump = await run(inNs(this.ns.exit, ["wg", "show", this.link.exitWg, "dump"]));
    return dump
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split("\t")[0]!);
  }

  /** Namespaces, links, the internet host and the control plane; the exit not yet set up. */
  async setUp() {
    const { ns, link } = this;
    this.workDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-tunnel-"));

    // Hosts and links.
    for (const name of Object.values(ns)) await addNamespace(name);
    await addVethPair(
      { namespace: null, name: link.root, address: `${ROOT_ADDRESS}/30` },
      { namespace: ns.exit, name: link.exitRoot, address: `${EXIT_CONTROL_ADDRESS}/30` },
    );
    const exit = (name: string, address: string) => ({ namespace: ns.exit, name, address });
    await addVethPair(
      { namespace: ns.client, name: link.client, address: `${CLIENT_PUBLIC}/24` },
      exit(link.exitClient, `${EXIT_PUBLIC}/24`),
    );
    await addVethPair(
      { namespace: ns.inet, name: link.inet, address: `${INTERNET}/24` },
      exit(link.exitInet, `${EXIT_INET}/24`),
    );
    await addVethPair(
      { namespace: ns.other, name: link.other, address: `${OTHER_LINK.other}/30` },
      exit(link.exitOther, `${OTHER_LINK.exit}/30`),
    );
    // The resolver setup configures and starts lives in the exit's own /etc/unbound (decision 092).
    await giveNodeItsOwnUnbound(ns.exit, path.join(this.workDir, "exit-unbound"));
    this.exitBeforeSetup = await this.exitHostState();
    this.bundle = await buildAgent(path.join(this.workDir, "naijalink-agent.mjs"));

    // The internet host: answers with the address the request came from.
    await this.startEcho(ns.inet, INTERNET, "the echo server");

    // The control plane, reachable from the exit over the control link.
    this.started = await startTestServer({
      env: { HOST: ROOT_ADDRESS, VPN_ENDPOINT: `${EXIT_PUBLIC}:51820` },
    });
    this.apiUrl = `http://${ROOT_ADDRESS}:${new URL(this.started.url).port}`;
  }

  async tearDown() {
    const { ns, link } = this;
    const failures = await runAll([
      async () => {
        for (const child of this.children) child.kill("SIGTERM");
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const child of this.children) if (child.exitCode === null) child.kill("SIGKILL");
      },
      () => run(inNs(ns.exit, ["ip", "link", "del", link.exitWg])),
      () => run(inNs(ns.client, ["ip", "link", "del", link.clientWg])),
      () => run(inNs(ns.other, ["ip", "link", "del", link.otherWg])),
      () => run(["ip", "link", "del", link.root]),
      ...Object.values(ns).map((name) => () => endNamespace(name)),
      async () => this.started?.stop(),
      () => fs.rm(this.workDir, { recursive: true, force: true }),
    ]);
    const expected = failures.filter(
      (failure) => !/Cannot find device|No such file|does not exist|Bad rule/i.test(failure),
    );
    if (expected.length) console.warn(`[tunnel] cleanup: ${expected.join("; ")}`);
  }
}
