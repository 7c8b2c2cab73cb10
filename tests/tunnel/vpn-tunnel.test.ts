// A real WireGuard tunnel through the product, in network namespaces of its own:
//
//   root namespace ── veth 198.51.100.1/30 ─┐   (the control plane: the built app on 198.51.100.1)
//                                           │
//   client ── veth 192.0.2.2/24 ──── 192.0.2.1/24 ── exit ── 203.0.113.1/24 ──── 203.0.113.80/24 ── internet
//   wireguard-go from the downloaded          the bundled agent: `setup`           HTTP echo of the
//   .conf; default routes into the tunnel     then the agent itself                caller's address
//
// The exit is prepared by what an operator runs, the bundled agent's `setup --no-systemd`
// (interface, addresses, forwarding, NAT; decision 080): this file only makes the namespaces,
// their links and the internet host. The agent then runs inside the exit namespace exactly as on
// a VPN host and reaches the app over the 198.51.100.0/30 link. Pools: 10.99.0.0/24 and
// fd99::/64. See docs/decisions/042. Both links are egress, so tunnel traffic to the app leaves
// as the exit's 198.51.100.2, which the agent reports as its exit address: /check through the
// tunnel says connected (decision 069).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, subscriptions, vpnServers } from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { replaceDeviceKeys } from "#server/domain/vpn/device-keys.ts";
import { revokeDevice } from "#server/domain/vpn/devices.ts";
import { setServerStatus } from "#server/domain/vpn/server-admin.ts";
import { listServerHealth } from "#server/domain/vpn/server-health.ts";
import { buildAgent } from "../../scripts/build-agent.js";
import { startTestServer, type TestServer } from "../support/app.ts";
import { issueTestDevice } from "../support/vpn.ts";
import {
  addNamespace,
  addVethPair,
  endNamespace,
  giveNodeItsOwnUnbound,
  inNs,
  run,
  runAll,
  tunnelUnavailableReason,
  waitFor,
} from "./host.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

const id = process.pid % 100_000;
const ns = {
  exit: `nl-exit-${id}`,
  client: `nl-client-${id}`,
  inet: `nl-inet-${id}`,
  /** A second customer, reaching the exit over a link of its own: peers must not reach each other. */
  other: `nl-other-${id}`,
};
const link = {
  root: `nlr${id}`, // root side of the control link
  exitRoot: `nler${id}`,
  client: `nlc${id}`,
  exitClient: `nlec${id}`,
  exitInet: `nlei${id}`,
  inet: `nli${id}`,
  exitWg: `nlwe${id}`,
  clientWg: `nlwc${id}`,
  other: `nlo${id}`,
  exitOther: `nleo${id}`,
  otherWg: `nlwo${id}`,
};
const ROOT_ADDRESS = "198.51.100.1";
const EXIT_CONTROL_ADDRESS = "198.51.100.2";
const EXIT_PUBLIC = "192.0.2.1";
const CLIENT_PUBLIC = "192.0.2.2";
const EXIT_INET = "203.0.113.1";
const INTERNET = "203.0.113.80";
const POOL_V4 = "10.99.0.0/24";
const POOL_V6 = "fd99::/64";
const OTHER_LINK = { exit: "198.18.0.1", other: "198.18.0.2" };

const wgEnv = { ...process.env, WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" };

describe.skipIf(reason !== null && !mustRun)("a WireGuard tunnel from a downloaded config", () => {
  let app: TestServer | undefined;
  let apiUrl = "";
  let workDir = "";
  const children: ChildProcess[] = [];
  let agentOutput = "";
  let agent: ChildProcess | undefined;
  let bundle = "";
  let setupArgs: string[] = [];
  /** The exit host's rules, addresses and forwarding before setup: uninstall must restore them. */
  let exitBeforeSetup = "";
  let clientPublicKey = "";
  let deviceId = "";
  let downloadToken = "";
  let configText = "";
  /** Keys and tokens of configs replaced during the run: they must not be logged either. */
  const replacedSecrets: string[] = [];

  /** One `Name = value` line of a downloaded .conf. */
  function fieldOf(text: string, name: string): string {
    const match = new RegExp(`^${name}\\s*=\\s*(.+)$`, "m").exec(text);
    if (!match) throw new Error(`the config has no ${name}`);
    return match[1]!.trim();
  }

  /** The .conf as `wg setconf` takes it: wg-quick's own fields (Address, DNS) left out. */
  function setconfText(text: string): string {
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

  function secretsOf(text: string): string[] {
    return [fieldOf(text, "PrivateKey"), fieldOf(text, "PresharedKey")];
  }

  function start(
    argv: string[],
    options: { env?: NodeJS.ProcessEnv; collect?: (text: string) => void } = {},
  ) {
    const child = spawn(argv[0]!, argv.slice(1), {
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => options.collect?.(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => options.collect?.(chunk.toString()));
    children.push(child);
    return child;
  }

  /** GET an echo server (the internet host unless told) from a namespace; the body is the address it saw, or null. */
  async function probe(
    timeoutSeconds = 2,
    from = ns.client,
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

  /** The bundled agent inside the exit namespace, as an operator runs it on a VPN host. */
  const bundled = (args: string[]) =>
    run(inNs(ns.exit, [process.execPath, bundle, ...args]), { timeoutMs: 60_000 });

  /**
   * What setup touches on the exit host, as text: rules, addresses, links, kernel settings. (Not
   * `wg show all`: wireguard-go's sockets in the shared /var/run/wireguard list every namespace's.)
   */
  async function exitHostState(): Promise<string> {
    const withoutComments = (text: string) =>
      text
        .split("\n")
        .filter((line) => !line.startsWith("#"))
        .join("\n");
    const sysctl = [
      "net.ipv4.ip_forward",
      "net.ipv6.conf.all.forwarding",
      `net.ipv6.conf.${link.exitInet}.accept_ra`,
    ];
    return [
      await run(inNs(ns.exit, ["nft", "list", "ruleset"])),
      withoutComments(await run(inNs(ns.exit, ["iptables-save"]))),
      withoutComments(await run(inNs(ns.exit, ["ip6tables-save"]))),
      await run(inNs(ns.exit, ["ip", "-brief", "address"])),
      await run(inNs(ns.exit, ["ip", "-brief", "link"])),
      await run(inNs(ns.exit, ["sysctl", ...sysctl])),
      await run(inNs(ns.exit, ["ls", "-A", "/etc/unbound/unbound.conf.d"])),
    ].join("\n---\n");
  }

  /** Configures a client namespace from a downloaded .conf alone, as wg-quick would. */
  async function bringUpClient(namespace: string, wgLink: string, text: string) {
    const field = (name: string) => fieldOf(text, name);
    const confFile = path.join(workDir, `${wgLink}.conf`);
    await fs.writeFile(confFile, setconfText(text), { mode: 0o600 });
    start(inNs(namespace, ["wireguard-go", "-f", wgLink]), { env: wgEnv });
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

  async function exitPeers(): Promise<string[]> {
    const dump = await run(inNs(ns.exit, ["wg", "show", link.exitWg, "dump"]));
    return dump
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split("\t")[0]!);
  }

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-tunnel-"));

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
    await giveNodeItsOwnUnbound(ns.exit, path.join(workDir, "exit-unbound"));
    exitBeforeSetup = await exitHostState();
    bundle = await buildAgent(path.join(workDir, "naijalink-agent.mjs"));

    // The internet host: answers with the address the request came from.
    const echo = `require("http").createServer((q,s)=>s.end(q.socket.remoteAddress)).listen(8080,"${INTERNET}",()=>console.log("listening"))`;
    let echoOutput = "";
    start(inNs(ns.inet, [process.execPath, "-e", echo]), { collect: (text) => (echoOutput += text) });
    await waitFor("the echo server", async () => echoOutput.includes("listening"), 10_000);

    // The control plane, reachable from the exit over the control link.
    app = await startTestServer({ env: { HOST: ROOT_ADDRESS, VPN_ENDPOINT: `${EXIT_PUBLIC}:51820` } });
    apiUrl = `http://${ROOT_ADDRESS}:${new URL(app.url).port}`;
  }, 120_000);

  afterAll(async () => {
    const failures = await runAll([
      async () => {
        for (const child of children) child.kill("SIGTERM");
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
      },
      () => run(inNs(ns.exit, ["ip", "link", "del", link.exitWg])),
      () => run(inNs(ns.client, ["ip", "link", "del", link.clientWg])),
      () => run(inNs(ns.other, ["ip", "link", "del", link.otherWg])),
      () => run(["ip", "link", "del", link.root]),
      ...Object.values(ns).map((name) => () => endNamespace(name)),
      async () => app?.stop(),
      () => fs.rm(workDir, { recursive: true, force: true }),
    ]);
    const expected = failures.filter(
      (failure) => !/Cannot find device|No such file|does not exist|Bad rule/i.test(failure),
    );
    if (expected.length) console.warn(`[tunnel] cleanup: ${expected.join("; ")}`);
  }, 60_000);

  it("registers a VPN server with the CLI, prepares the exit with the bundled agent's setup and runs the agent", async () => {
    const db = app!.services.db;
    const cli = await run(
      [
        process.execPath,
        "--import",
        "tsx",
        "scripts/vpn.ts",
        "add-server",
        "--name",
        `tunnel-${id}`,
        "--endpoint",
        `${EXIT_PUBLIC}:51820`,
        "--ipv4",
        POOL_V4,
        "--ipv6",
        POOL_V6,
        "--dns",
        "192.0.2.53",
        "--url",
        apiUrl,
      ],
      { timeoutMs: 60_000, env: { ...process.env, DATA_DIR: app!.dataDir, LOG_LEVEL: "warn" } },
    ).catch((error: Error) => {
      throw new Error(`npm run vpn -- add-server failed: ${error.message}`);
    });
    const nodeToken = cli.trim().split("\n")[1]!.trim();
    expect(nodeToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const tokenFile = path.join(workDir, "node-token");
    await fs.writeFile(tokenFile, nodeToken, { mode: 0o600 });

    // The host as an operator prepares it: one command, with what the control plane says of the server.
    setupArgs = [
      "setup",
      "--api",
      apiUrl,
      "--token-file",
      tokenFile,
      "--interface",
      link.exitWg,
      "--listen-port",
      "51820",
      "--egress",
      `${link.exitInet},${link.exitRoot}`,
      "--exit-addresses",
      EXIT_CONTROL_ADDRESS,
      "--state-file",
      path.join(workDir, "exit", "setup.json"),
      "--no-systemd",
    ];
    const setupOutput = await bundled(setupArgs);
    expect(setupOutput).toContain(`wireguard-go ${link.exitWg}`);
    expect(setupOutput).toContain("ip address add 10.99.0.1/24");
    expect(setupOutput).toContain("ip address add fd99::1/64");
    expect(setupOutput).toContain(
      `exit addresses (reported by the agent, shown by /check): ${EXIT_CONTROL_ADDRESS}`,
    );
    const addresses = await run(inNs(ns.exit, ["ip", "-brief", "address", "show", "dev", link.exitWg]));
    expect(addresses).toContain("10.99.0.1/24");
    expect(addresses).toContain("fd99::1/64");
    const ruleset = await run(inNs(ns.exit, ["nft", "list", "table", "inet", "naijalink"]));
    expect(ruleset).toContain(`iifname "${link.exitWg}" oifname "${link.exitWg}" drop`);
    expect(ruleset).toContain(
      `ip saddr ${POOL_V4} oifname { "${link.exitInet}", "${link.exitRoot}" } masquerade`,
    );

    agent = start(
      inNs(ns.exit, [
        process.execPath,
        bundle,
        "--api",
        apiUrl,
        "--token-file",
        tokenFile,
        "--interface",
        link.exitWg,
        "--private-key-file",
        path.join(workDir, "exit", "private.key"),
        "--poll-ms",
        "300",
        "--reconcile-ms",
        "1500",
        "--status-ms",
        "2000",
        "--exit-addresses",
        EXIT_CONTROL_ADDRESS,
      ]),
      { collect: (text) => (agentOutput += text) },
    );
    // The agent registers the key it generated; only then does the server take devices.
    const [server] = await waitFor(
      "the agent to register the node's public key",
      async () => {
        const rows = await db
          .select()
          .from(vpnServers)
          .where(eq(vpnServers.name, `tunnel-${id}`));
        return rows[0]?.publicKey ? rows : undefined;
      },
      30_000,
      200,
    );
    // Only the tunnel's server takes devices from now on.
    await db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(ne(vpnServers.name, `tunnel-${id}`));
    const exitKey = await run(inNs(ns.exit, ["wg", "show", link.exitWg, "public-key"]));
    expect(server!.publicKey).toBe(exitKey.trim());
    expect((await run(inNs(ns.exit, ["wg", "show", link.exitWg, "listen-port"]))).trim()).toBe("51820");
  });

  it("changes nothing when setup runs a second time", async () => {
    const listenPort = () => run(inNs(ns.exit, ["wg", "show", link.exitWg, "listen-port"]));
    const before = `${await exitHostState()}\n${await listenPort()}`;
    const output = await bundled(setupArgs);
    expect(output).toContain("nothing to change: this host is set up");
    expect(`${await exitHostState()}\n${await listenPort()}`).toBe(before);
    // The dry run prints and changes nothing, too.
    const dryRun = await bundled([...setupArgs, "--dry-run"]);
    expect(dryRun).toContain("nothing to change: this host is set up");
  });

  it("carries the client's traffic to the internet host, which sees the exit's address", async () => {
    const db = app!.services.db;
    const [subscription] = await db
      .insert(subscriptions)
      .values({
        planId: "basic-monthly",
        planType: "basic",
        deviceLimit: 1,
        customerEmail: "buyer@example.com",
        expiresAt: new Date(Date.now() + 30 * 86_400_000),
        checkoutSessionId: `cs_tunnel_${id}_${Date.now()}`,
      })
      .returning();
    const issued = await issueTestDevice(app!.services, subscription!);
    deviceId = issued.device.id;
    downloadToken = issued.downloadToken;
    clientPublicKey = issued.device.publicKey;
    expect(issued.server.name).toBe(`tunnel-${id}`);

    // The customer opens the e-mailed link: a plain GET, which does not count as activation.
    const download = await fetch(`${apiUrl}/api/configs/${downloadToken}`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="NaijaLink1.conf"');
    configText = await download.text();
    const [downloaded] = await db.select().from(devices).where(eq(devices.id, deviceId));
    expect(downloaded!.activatedAt).toBeNull();

    expect(fieldOf(configText, "Endpoint")).toBe(`${EXIT_PUBLIC}:51820`);
    await bringUpClient(ns.client, link.clientWg, configText);

    await waitFor(
      "the agent to add the device's peer",
      async () => (await exitPeers()).includes(clientPublicKey),
      10_000,
    );
    const seen = await waitFor(
      "a reply through the tunnel",
      () => probe(2).then((body) => body ?? undefined),
      20_000,
      200,
    );
    expect(seen).toBe(EXIT_INET);
    expect(seen).not.toBe(CLIENT_PUBLIC);

    // The agent's next status report carries the first handshake: that activates the device.
    const [device] = await waitFor(
      "the agent to report the device's first handshake",
      async () => {
        const rows = await db.select().from(devices).where(eq(devices.id, deviceId));
        return rows[0]?.activatedAt ? rows : undefined;
      },
      10_000,
      200,
    );
    expect(device!.activatedVia).toBe("handshake");
    expect(device!.activatedAt!.getTime()).toBeLessThanOrEqual(Date.now());

    // Its reports carry the peer's transfer counters too: the device's data this period (decision 073).
    const [counted] = await waitFor(
      "the agent to report the device's transfer",
      async () => {
        const rows = await db.select().from(devices).where(eq(devices.id, deviceId));
        return rows[0]!.transferRxBytes > 0 && rows[0]!.transferTxBytes > 0 ? rows : undefined;
      },
      10_000,
      200,
    );
    expect(counted!.transferPeriodStart).not.toBeNull();
  });

  it("does not carry one customer's traffic to another customer's device", async () => {
    const db = app!.services.db;
    const [subscription] = await db
      .insert(subscriptions)
      .values({
        planId: "basic-monthly",
        planType: "basic",
        deviceLimit: 1,
        customerEmail: "other@example.com",
        expiresAt: new Date(Date.now() + 30 * 86_400_000),
        checkoutSessionId: `cs_tunnel_other_${id}_${Date.now()}`,
      })
      .returning();
    const other = await issueTestDevice(app!.services, subscription!);
    const otherText = await (await fetch(`${apiUrl}/api/configs/${other.downloadToken}`)).text();
    replacedSecrets.push(...secretsOf(otherText), other.downloadToken);
    // The other customer reaches the exit's public address over its own link.
    await run(inNs(ns.other, ["ip", "route", "add", `${EXIT_PUBLIC}/32`, "via", OTHER_LINK.exit]));
    await bringUpClient(ns.other, link.otherWg, otherText);
    const otherAddress = fieldOf(otherText, "Address").split(",")[0]!.trim().split("/")[0]!;
    const echo = `require("http").createServer((q,s)=>s.end(q.socket.remoteAddress)).listen(8080,"${otherAddress}",()=>console.log("listening"))`;
    let echoOutput = "";
    start(inNs(ns.other, [process.execPath, "-e", echo]), { collect: (text) => (echoOutput += text) });
    await waitFor("the other customer's echo server", async () => echoOutput.includes("listening"), 10_000);
    const seen = await waitFor(
      "the other customer's tunnel",
      () => probe(2, ns.other).then((body) => body ?? undefined),
      20_000,
      200,
    );
    expect(seen).toBe(EXIT_INET);

    // The exit itself reaches the other device through the tunnel; the first customer does not.
    expect(await probe(2, ns.exit, `${otherAddress}:8080`)).toBe("10.99.0.1");
    expect(await probe(2, ns.client, `${otherAddress}:8080`)).toBeNull();
    expect(await probe(2)).toBe(EXIT_INET);
    await revokeDevice(db, other.device.id);
  });

  it("re-applies a peer removed behind the agent's back", async () => {
    // Counted in the agent's log, not by looking for the gap: its reconcile timer may close the
    // gap before a `wg show` after the removal gets to run on a busy machine.
    const repairs = () => agentOutput.split("drift repaired").length - 1;
    const repairsBefore = repairs();
    await run(inNs(ns.exit, ["wg", "set", link.exitWg, "peer", clientPublicKey, "remove"]));
    await waitFor(
      "the agent to repair the drift",
      async () => repairs() > repairsBefore && (await exitPeers()).includes(clientPublicKey),
      10_000,
    );
    const seen = await waitFor(
      "traffic through the repaired tunnel",
      () => probe(2).then((body) => body ?? undefined),
      20_000,
      200,
    );
    expect(seen).toBe(EXIT_INET);
  });

  it("shows the agent's report on the servers page; disabled, the node drops the peer; enabled, carries it again", async () => {
    const db = app!.services.db;
    const name = `tunnel-${id}`;
    const reported = () =>
      waitFor(
        "the agent to report the peer set it applied",
        async () => {
          const row = (await listServerHealth(db)).find((server) => server.name === name)!;
          return row.appliedPeers === row.desiredPeers && row.appliedVersion === row.desiredVersion
            ? row
            : undefined;
        },
        10_000,
        200,
      );
    expect(await reported()).toMatchObject({
      status: "active",
      desiredPeers: 1,
      connectedPeers: 1,
      liveDevices: 1,
    });

    await setServerStatus(db, name, "disabled");
    await waitFor(
      "the agent to drop the disabled server's peer",
      async () => !(await exitPeers()).includes(clientPublicKey),
      5_000,
      50,
    );
    expect(await probe(2)).toBeNull();
    expect(await reported()).toMatchObject({
      status: "disabled",
      desiredPeers: 0,
      appliedPeers: 0,
      liveDevices: 1,
    });

    await setServerStatus(db, name, "active");
    await waitFor(
      "the agent to carry the peer again",
      async () => (await exitPeers()).includes(clientPublicKey),
      5_000,
      50,
    );
    const seen = await waitFor(
      "traffic again",
      () => probe(2).then((body) => body ?? undefined),
      20_000,
      200,
    );
    expect(seen).toBe(EXIT_INET);
    expect(await reported()).toMatchObject({ status: "active", desiredPeers: 1, appliedPeers: 1 });
  });

  it("answers /check through the tunnel with the exit server's name, and not connected from outside", async () => {
    const db = app!.services.db;
    await waitFor(
      "the agent to report its exit address",
      async () => {
        const [server] = await db
          .select()
          .from(vpnServers)
          .where(eq(vpnServers.name, `tunnel-${id}`));
        return server?.exitAddresses.includes(EXIT_CONTROL_ADDRESS) || undefined;
      },
      10_000,
      200,
    );
    const script = `fetch("${apiUrl}/check",{signal:AbortSignal.timeout(5000)}).then(r=>r.text()).then(t=>process.stdout.write(t),()=>process.exit(3))`;
    const through = await run(inNs(ns.client, [process.execPath, "-e", script]), { timeoutMs: 15_000 });
    expect(through).toContain("Yes, you are connected through Nigeria");
    expect(through).toContain(`tunnel-${id}`);
    expect(through).toContain(EXIT_CONTROL_ADDRESS);

    const outside = await (await fetch(`${apiUrl}/check`)).text();
    expect(outside).toContain("No, you are not connected through Nigeria");
    expect(outside).not.toContain(`tunnel-${id}`);
  });

  it("after new keys, the old config stops carrying traffic and the new one carries it", async () => {
    const oldKey = clientPublicKey;
    const oldDownload = `${apiUrl}/api/configs/${downloadToken}`;
    const renewed = (await replaceDeviceKeys(app!.services.db, app!.services.sealer, deviceId))!;
    await waitFor(
      "the agent to swap the device's key on the exit",
      async () => {
        const peers = await exitPeers();
        return (!peers.includes(oldKey) && peers.includes(renewed.publicKey)) || undefined;
      },
      5_000,
      50,
    );
    expect(await probe(2)).toBeNull();

    const newPath = new URL(downloadUrl(app!.services, renewed)).pathname;
    const download = await fetch(`${apiUrl}${newPath}`);
    expect(download.status).toBe(200);
    const renewedText = await download.text();
    expect(fieldOf(renewedText, "Address")).toBe(fieldOf(configText, "Address"));
    expect(fieldOf(renewedText, "PrivateKey")).not.toBe(fieldOf(configText, "PrivateKey"));
    replacedSecrets.push(...secretsOf(configText), downloadToken);
    configText = renewedText;
    downloadToken = newPath.split("/").pop()!;
    clientPublicKey = renewed.publicKey;

    const confFile = path.join(workDir, "client.conf");
    await fs.writeFile(confFile, setconfText(configText), { mode: 0o600 });
    await run(inNs(ns.client, ["wg", "setconf", link.clientWg, confFile]));
    const seen = await waitFor(
      "traffic through the tunnel with the new keys",
      () => probe(2).then((body) => body ?? undefined),
      20_000,
      200,
    );
    expect(seen).toBe(EXIT_INET);
    expect((await fetch(oldDownload)).status).toBe(404);
  });

  it("stops carrying traffic within 5 s of the device being revoked", async () => {
    const revokedAt = Date.now();
    await revokeDevice(app!.services.db, deviceId);
    await waitFor(
      "the agent to remove the revoked peer",
      async () => !(await exitPeers()).includes(clientPublicKey),
      5_000,
      50,
    );
    const elapsed = Date.now() - revokedAt;
    expect(elapsed).toBeLessThan(5_000);
    expect(await probe(2)).toBeNull();
    console.log(`[tunnel] revoked peer removed from the exit after ${elapsed} ms`);
    const download = await fetch(`${apiUrl}/api/configs/${downloadToken}`);
    expect(download.status).toBe(410);
  });

  it("never logs a key or token (agent output and app log)", () => {
    for (const secret of [...secretsOf(configText), downloadToken, ...replacedSecrets]) {
      expect(agentOutput).not.toContain(secret);
      expect(app!.log.text).not.toContain(secret);
    }
    expect(agentOutput).toContain("node registered with the control plane");
    expect(agentOutput).toContain("drift repaired");
  });

  it("uninstall leaves the exit host's rules, addresses and forwarding as they were before setup", async () => {
    agent?.kill("SIGTERM");
    const output = await bundled([
      "uninstall",
      "--state-file",
      path.join(workDir, "exit", "setup.json"),
      "--no-systemd",
    ]);
    expect(output).toContain("nft delete table inet naijalink");
    expect(await exitHostState()).toBe(exitBeforeSetup);
    expect(
      await bundled(["uninstall", "--state-file", path.join(workDir, "exit", "setup.json"), "--no-systemd"]),
    ).toContain("nothing to remove");
  });
});
