// A node behind NAT prepared by the bundled agent's `setup` (issue 23, decision 097), in network
// namespaces of its own:
//
//   root namespace ── veth 198.51.100.245/30 ── 198.51.100.246 ── nat ── 10.77.0.1/30 ── 10.77.0.2 ── node
//   (the control plane)                           (masquerades the node's traffic)        (private egress)
//
// The node's egress holds only a private address, so `setup` asks the control plane which
// address its requests come from (GET /api/nodes/whoami) and offers it as the exit address; the
// agent then reports it. `uninstall` stopped half-way (a kernel setting it cannot put back) is run
// again and finishes: the host is as before setup, and the node's token and private key are gone.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { addVpnServer } from "#server/domain/vpn/servers.ts";
import { buildAgent } from "../../scripts/build-agent.js";
import { startTestServer, type TestServer } from "../support/app.ts";
import {
  endNamespace,
  giveNodeItsOwnUnbound,
  run,
  runAll,
  tunnelUnavailableReason,
  waitFor,
} from "../support/tunnel/host.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

const id = process.pid % 100_000;
const ns = { nat: `nl-nat-${id}`, node: `nl-node-${id}` };
const link = {
  root: `nlsr${id}`,
  natRoot: `nlsnr${id}`,
  natNode: `nlsnn${id}`,
  egress: `nlse${id}`,
  wg: `nlsw${id}`,
};
const CONTROL_PLANE = "198.51.100.245";
const NAT_PUBLIC = "198.51.100.246";
const inNs = (name: string, argv: string[]) => ["ip", "netns", "exec", name, ...argv];

describe.skipIf(reason !== null && !mustRun)("node setup behind NAT and uninstall after a failure", () => {
  let app: TestServer | undefined;
  let apiUrl = "";
  let workDir = "";
  let bundle = "";
  let tokenFile = "";
  let privateKeyFile = "";
  let recordFile = "";
  let systemdDir = "";
  let nodeBeforeSetup = "";
  const children: ChildProcess[] = [];

  /**
   * The bundled agent on the node, on a host systemd does not run: setup tells by
   * /run/systemd/system (agent/setup/facts.ts), which a tmpfs hides where this machine has it.
   */
  const withoutSystemd = (argv: string[]) =>
    existsSync("/run/systemd/system")
      ? [
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          'mount -t tmpfs tmpfs /run/systemd && exec "$@"',
          "sh",
          ...argv,
        ]
      : argv;
  const bundled = (args: string[], env?: NodeJS.ProcessEnv) =>
    run(withoutSystemd(inNs(ns.node, [process.execPath, bundle, ...args])), { timeoutMs: 60_000, env });

  /** What setup touches on the node: rules, addresses, links, kernel settings. */
  const nodeState = async () =>
    [
      await run(inNs(ns.node, ["nft", "list", "ruleset"])),
      await run(inNs(ns.node, ["ip", "-brief", "address"])),
      await run(inNs(ns.node, ["ip", "-brief", "link"])),
      await run(inNs(ns.node, ["sysctl", "net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"])),
    ].join("\n---\n");

  const setupArgs = () => [
    "setup",
    "--api",
    apiUrl,
    "--token-file",
    tokenFile,
    "--private-key-file",
    privateKeyFile,
    "--interface",
    link.wg,
    "--listen-port",
    "51820",
    "--egress",
    link.egress,
    "--state-file",
    recordFile,
    // Not --no-systemd: setup is asked for a unit and finds no systemd to run it (issue 35).
    "--systemd-dir",
    systemdDir,
  ];

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    const taken = await run(["ip", "-brief", "address"]);
    if (taken.includes(`${CONTROL_PLANE}/`))
      throw new Error(`${CONTROL_PLANE} is in use on this host already`);
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-node-setup-"));
    tokenFile = path.join(workDir, "node-token");
    privateKeyFile = path.join(workDir, "state", "private.key");
    recordFile = path.join(workDir, "state", "setup.json");
    systemdDir = path.join(workDir, "systemd");
    for (const name of Object.values(ns)) {
      await run(["ip", "netns", "add", name]);
      await run(inNs(name, ["ip", "link", "set", "lo", "up"]));
    }
    // setup starts a resolver: the node's own, not the machine's (tests/support/tunnel/host.ts).
    await giveNodeItsOwnUnbound(ns.node, path.join(workDir, "unbound"));
    await run([
      "ip",
      "link",
      "add",
      link.root,
      "type",
      "veth",
      "peer",
      "name",
      link.natRoot,
      "netns",
      ns.nat,
    ]);
    await run(["ip", "addr", "add", `${CONTROL_PLANE}/30`, "dev", link.root]);
    await run(["ip", "link", "set", link.root, "up"]);
    await run(inNs(ns.nat, ["ip", "addr", "add", `${NAT_PUBLIC}/30`, "dev", link.natRoot]));
    await run(inNs(ns.nat, ["ip", "link", "set", link.natRoot, "up"]));
    await run([
      "ip",
      "link",
      "add",
      link.natNode,
      "netns",
      ns.nat,
      "type",
      "veth",
      "peer",
      "name",
      link.egress,
      "netns",
      ns.node,
    ]);
    await run(inNs(ns.nat, ["ip", "addr", "add", "10.77.0.1/30", "dev", link.natNode]));
    await run(inNs(ns.nat, ["ip", "link", "set", link.natNode, "up"]));
    await run(inNs(ns.nat, ["sysctl", "-qw", "net.ipv4.ip_forward=1"]));
    await run(inNs(ns.nat, ["nft", "-f", "-"]), {
      input: [
        "table ip nat {",
        "  chain post {",
        "    type nat hook postrouting priority 100;",
        `    oifname "${link.natRoot}" masquerade;`,
        "  }",
        "}",
        "",
      ].join("\n"),
    });
    await run(inNs(ns.node, ["ip", "addr", "add", "10.77.0.2/30", "dev", link.egress]));
    await run(inNs(ns.node, ["ip", "link", "set", link.egress, "up"]));
    await run(inNs(ns.node, ["ip", "route", "add", "default", "via", "10.77.0.1"]));
    nodeBeforeSetup = await nodeState();
    bundle = await buildAgent(path.join(workDir, "naijalink-agent.mjs"));

    app = await startTestServer({ env: { HOST: CONTROL_PLANE } });
    apiUrl = `http://${CONTROL_PLANE}:${new URL(app.url).port}`;
    const { nodeToken } = await addVpnServer(app.services.db, {
      name: `natted-${id}`,
      endpoint: `${NAT_PUBLIC}:51820`,
      ipv4Cidr: "10.98.0.0/24",
      ipv6Cidr: "fd98::/64",
      dns: "1.1.1.1",
    });
    await fs.writeFile(tokenFile, nodeToken, { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    const failures = await runAll([
      async () => {
        for (const child of children) child.kill("SIGTERM");
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
      },
      () => run(inNs(ns.node, ["ip", "link", "del", link.wg])),
      () => run(["ip", "link", "del", link.root]),
      ...Object.values(ns).map((name) => () => endNamespace(name)),
      async () => app?.stop(),
      () => fs.rm(workDir, { recursive: true, force: true }),
    ]);
    const expected = failures.filter(
      (failure) => !/Cannot find device|No such file|does not exist/i.test(failure),
    );
    if (expected.length) console.warn(`[tunnel] cleanup: ${expected.join("; ")}`);
  }, 60_000);

  it("with a private egress address, setup offers the address the control plane sees; --yes takes it and the agent reports it", async () => {
    // Without a terminal and without --yes nothing is taken, and the way to take it is said.
    const dryRun = await bundled([...setupArgs(), "--dry-run"]);
    expect(dryRun).toContain(
      `has no public IPv4 (NAT?): the control plane sees this node's requests from ${NAT_PUBLIC}`,
    );
    expect(dryRun).toContain(
      `setup would offer ${NAT_PUBLIC} as the exit address (--yes takes it, --exit-addresses overrides it)`,
    );
    expect(await nodeState()).toBe(nodeBeforeSetup);

    const output = await bundled([...setupArgs(), "--yes"]);
    expect(output).toContain(`exit addresses (reported by the agent, shown by /check): ${NAT_PUBLIC}`);

    // Without systemd: no unit, and the agent's whole command line to start it by hand.
    expect(output).toContain("systemd does not run this host (no /run/systemd/system): no service unit");
    await expect(fs.readdir(systemdDir)).rejects.toMatchObject({ code: "ENOENT" });
    const lines = output.trim().split("\n");
    expect(lines.at(-2)).toContain("without a service unit, start the agent yourself");
    const printed = lines.at(-1)!.split(" ");
    expect(printed.slice(0, 2)).toEqual([process.execPath, bundle]);
    for (const flag of ["--token-file", "--private-key-file", "--exit-addresses", "--interface", "--api"])
      expect(printed, flag).toContain(flag);
    expect(printed[printed.indexOf("--exit-addresses") + 1]).toBe(NAT_PUBLIC);
    let agentOutput = "";
    // The printed command as it is, with only quicker reports and no metrics port for the test.
    const agent = spawn(
      "ip",
      inNs(ns.node, [...printed, "--status-ms", "1000", "--metrics-port", "0"]).slice(1),
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(agent);
    agent.stdout.on("data", (chunk: Buffer) => (agentOutput += chunk.toString()));
    agent.stderr.on("data", (chunk: Buffer) => (agentOutput += chunk.toString()));
    const server = await waitFor(
      `the agent to report its exit address (agent said: ${agentOutput.slice(-300)})`,
      async () => {
        const [row] = await app!.services.db
          .select()
          .from(vpnServers)
          .where(eq(vpnServers.name, `natted-${id}`));
        return row?.publicKey && row.exitAddresses.length ? row : undefined;
      },
      60_000,
      200,
    );
    expect(server.exitAddresses).toEqual([NAT_PUBLIC]);
    // A new bundle copied over the one the agent runs: setup says that agent is the older one.
    const later = new Date(Date.now() + 120_000);
    await fs.utimes(bundle, later, later);
    const again = await bundled([...setupArgs(), "--yes"]);
    expect(again).toContain(`# the agent running now (pid ${agent.pid}`);
    expect(again).toContain(`is older than ${bundle}`);
    agent.kill("SIGTERM");
    await waitFor(
      "the agent to stop",
      async () => agent.exitCode !== null || agent.signalCode !== null,
      10_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message} (agent said: ${agentOutput.slice(-1500)})`);
    });
    await fs.access(privateKeyFile);
  });

  it("uninstall stopped half-way carries on when run again: the host as before setup, token and private key gone", async () => {
    // A sysctl that refuses: uninstall stops at putting the kernel settings back.
    const brokenBin = path.join(workDir, "broken-bin");
    await fs.mkdir(brokenBin, { recursive: true });
    await fs.writeFile(
      path.join(brokenBin, "sysctl"),
      "#!/bin/sh\necho 'sysctl: permission denied' >&2\nexit 1\n",
      {
        mode: 0o755,
      },
    );
    const uninstall = ["uninstall", "--state-file", recordFile, "--systemd-dir", systemdDir];
    const interrupted = await bundled(uninstall, {
      ...process.env,
      PATH: `${brokenBin}:${process.env.PATH}`,
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(interrupted).toContain("stopped at: put back the kernel setting as it was");
    await fs.access(recordFile);
    await fs.access(tokenFile);

    const resumed = await bundled(uninstall);
    expect(resumed).toContain("sysctl -qw net.ipv4.ip_forward=0");
    expect(resumed).not.toContain(`ip link del ${link.wg}`);
    expect(await nodeState()).toBe(nodeBeforeSetup);
    for (const file of [recordFile, tokenFile, privateKeyFile])
      await expect(fs.access(file), file).rejects.toMatchObject({ code: "ENOENT" });
    expect(await bundled(uninstall)).toContain("nothing to remove");
  });
});
