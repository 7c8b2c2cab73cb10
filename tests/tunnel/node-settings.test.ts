// Node settings reach a running node without `setup` (issue 35, decision 129): `npm run vpn`
// set-mtu, set-ports and set-dns through the admin API, and the bundled agent, already running in
// the node's namespace, changes the interface MTU, the nft port redirects and the resolver, then
// reports the settings version it applied, which list-servers shows. Configs carry the new MTU
// only once the node has it. A setup run afterwards finds nothing to change: the agent built the
// same rules and resolver file setup does. Topology: tests/support/tunnel/hostile-network.ts.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerSummary } from "#server/domain/vpn/server-edits.ts";
import { describeServer } from "../../scripts/vpn-output.ts";
import { alternateConfig, buyConfig, confField, type Buyer } from "../support/tunnel/buyer.ts";
import { netnsEtc, tunnelUnavailableReason, waitFor } from "../support/tunnel/host.ts";
import { ADDRESS, type HostileNetwork } from "../support/tunnel/hostile-network.ts";
import { HostileWorld } from "../support/tunnel/hostile-world.ts";
import type { VpnNode } from "../support/tunnel/vpn-node.ts";

const reason = tunnelUnavailableReason(["curl", "dig"]);
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

const ZONE = "dns-check.internal";
const nonce = () => crypto.randomBytes(16).toString("hex").slice(0, 24);
/** Long enough for a held poll, an apply (unbound restarts) and a report on a loaded machine. */
const APPLY_MS = 30_000;

describe.skipIf(reason !== null && !mustRun)("node settings applied by the running agent", () => {
  const world = new HostileWorld("s", { hopMtu: 1500, env: { VPN_DNS_CHECK_ZONE: ZONE } });
  let network: HostileNetwork;
  let node: VpnNode;
  let buyer: Buyer;
  let apiUrl = "";
  let unboundFile = "";

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    await world.start();
    ({ network, node, buyer, apiUrl } = world);
    unboundFile = path.join(netnsEtc(network.ns.node), "unbound", "unbound.conf.d", "naijalink.conf");
  }, 240_000);

  afterAll(() => world.stop(), 60_000);

  const listed = async (): Promise<ServerSummary> => {
    const { servers } = await node.admin<{ servers: ServerSummary[] }>({ command: "list-servers" });
    return servers.find((server) => server.name === node.serverName)!;
  };
  /** Changes a setting as `npm run vpn` does; the settings version it wants the node to apply. */
  const change = async (command: Record<string, unknown>) =>
    (await node.admin<{ server: ServerSummary }>({ ...command, server: node.serverName })).server.nodeSettings
      .desiredVersion;
  const appliedBy = (version: number) =>
    waitFor(
      `the node to report settings version ${version} applied`,
      async () => {
        const server = await listed();
        return server.nodeSettings.state === "applied" && server.nodeSettings.appliedVersion === version
          ? server
          : undefined;
      },
      APPLY_MS,
      200,
    );
  const interfaceMtu = async () =>
    (JSON.parse(await node.exec(["ip", "-j", "link", "show", network.wg.node])) as Array<{ mtu: number }>)[0]!
      .mtu;
  const waitForTunnel = (what: string) =>
    waitFor(what, () => buyer.echo(3).then((body) => body ?? undefined), 30_000, 200);

  it("set-mtu: the interface takes the new MTU, the version is reported, then configs carry it", async () => {
    // The agent's first report may still be on its way: wait for the version it runs now.
    const before = await appliedBy((await listed()).nodeSettings.desiredVersion);
    expect(await interfaceMtu()).toBe(1280);
    expect(before.nodeSettings).toMatchObject({ state: "applied", nodeMtu: 1280 });
    const version = await change({ command: "set-mtu", mtu: 1380 });
    expect(version).toBe(before.nodeSettings.desiredVersion + 1);
    await waitFor("the interface MTU 1380", async () => (await interfaceMtu()) === 1380, APPLY_MS, 200);
    const server = await appliedBy(version);
    expect(server.nodeSettings.nodeMtu).toBe(1380);
    expect(describeServer(server)).toContain("  MTU 1380  ");
    expect(describeServer(server)).toContain(`node applied settings version ${version} at `);
    expect(node.agentOutput).toContain('"msg":"node settings applied"');
    const bought = await buyConfig(apiUrl, "mtu-applied@example.com");
    expect(confField(bought.text, "MTU")).toBe("1380");
  });

  it("set-ports: the redirect follows, and a buyer whose path drops 51820 connects on the new port", async () => {
    const version = await change({ command: "set-ports", ports: [4500] });
    const prerouting = () => node.exec(["nft", "list", "chain", "inet", "naijalink", "prerouting"]);
    await waitFor(
      "the redirect of UDP 4500, and none of 443",
      async () => {
        const rules = await prerouting();
        return rules.includes("udp dport 4500 redirect to :51820") && !rules.includes("dport 443");
      },
      APPLY_MS,
      200,
    );
    await appliedBy(version);
    await network.setHop({ dropUdpPorts: [51820] });
    try {
      const bought = await buyConfig(apiUrl, "ports-applied@example.com");
      const alternate = await alternateConfig(apiUrl, bought, 4500);
      expect(confField(alternate, "Endpoint")).toBe(`${ADDRESS.nodePublic}:4500`);
      await buyer.connect(alternate);
      expect(await waitForTunnel("the tunnel over UDP 4500")).toBe(ADDRESS.nodeEgress);
    } finally {
      await network.setHop({});
    }
  });

  it("set-dns: the node's resolver goes and comes back, answering the buyer's lookups through the tunnel", async () => {
    const bought = await buyConfig(apiUrl, "dns-applied@example.com");
    await buyer.connect(bought.text);
    expect(await waitForTunnel("the tunnel")).toBe(ADDRESS.nodeEgress);
    const lookup = () =>
      buyer.exec(["dig", "+short", "+time=2", "+tries=1", `@${ADDRESS.nodeTunnel4}`, `${nonce()}.${ZONE}`]);
    expect((await lookup()).stdout.trim()).toBe(ADDRESS.nodeTunnel4);

    const away = await change({ command: "set-dns", dns: "192.0.2.53" });
    await waitFor(
      "the resolver's file to go",
      async () => (await fs.stat(unboundFile).catch(() => null)) === null,
      APPLY_MS,
      200,
    );
    await appliedBy(away);
    const input = await node.exec(["nft", "list", "chain", "inet", "naijalink", "input"]);
    expect(input).not.toContain("dport 53");
    expect((await lookup()).stdout.trim()).not.toBe(ADDRESS.nodeTunnel4);

    const back = await change({ command: "set-dns", dns: "node" });
    await appliedBy(back);
    expect(await fs.readFile(unboundFile, "utf8")).toContain(`stub-zone:`);
    const answered = await waitFor(
      "the node's resolver to answer again",
      async () => ((await lookup()).stdout.trim() === ADDRESS.nodeTunnel4 ? true : undefined),
      APPLY_MS,
      500,
    );
    expect(answered).toBe(true);
  });

  it("leaves nothing for setup to do: the agent built what setup builds", async () => {
    const output = await node.setup();
    expect(output).toContain("# nothing to change: this host is set up");
  });
});
