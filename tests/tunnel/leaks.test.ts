// Nothing of a bought config's traffic leaves outside the tunnel (issue 22, decision 093): DNS
// goes to the node's own resolver, which answers the tunnel only; peers reach nothing else of the
// node; on a node without IPv6 egress, IPv6 is refused at once instead of timing out. Topology:
// tests/support/tunnel/hostile-network.ts.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buyConfig, confField, type Buyer } from "../support/tunnel/buyer.ts";
import { inNs, run, runStatus, tunnelUnavailableReason, waitFor } from "../support/tunnel/host.ts";
import { ADDRESS, type HostileNetwork } from "../support/tunnel/hostile-network.ts";
import { HostileWorld } from "../support/tunnel/hostile-world.ts";
import type { VpnNode } from "../support/tunnel/vpn-node.ts";

const reason = tunnelUnavailableReason(["curl", "dig"]);
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);

const ZONE = "dns-check.internal";
const nonce = () => crypto.randomBytes(16).toString("hex").slice(0, 24);

describe.skipIf(reason !== null && !mustRun)("a bought config leaks nothing outside the tunnel", () => {
  const world = new HostileWorld("l", { hopMtu: 1500, env: { VPN_DNS_CHECK_ZONE: ZONE } });
  let network: HostileNetwork;
  let node: VpnNode;
  let buyer: Buyer;
  let apiUrl = "";

  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    await world.start();
    ({ network, node, buyer, apiUrl } = world);
    const config = (await buyConfig(apiUrl, "leaks@example.com")).text;
    expect(confField(config, "DNS")).toBe(`${ADDRESS.nodeTunnel4}, ${ADDRESS.nodeTunnel6}`);
    await buyer.connect(config);
    await waitFor("the tunnel", () => buyer.echo(3).then((body) => body ?? undefined), 30_000, 200);
    await buyer.countOuterTraffic();
  }, 240_000);

  afterAll(() => world.stop(), 60_000);

  it("resolves names through the node's resolver, with not one DNS packet on the buyer's outer interface", async () => {
    const first = nonce();
    const second = nonce();
    // The system resolver (the namespace's resolv.conf, from the config's DNS line) and dig.
    const a = await buyer.exec(["getent", "ahostsv4", `${first}.${ZONE}`]);
    expect(a.stdout).toContain(ADDRESS.nodeTunnel4);
    const aaaa = await buyer.exec(["dig", "+short", "+time=3", "+tries=2", "AAAA", `${second}.${ZONE}`]);
    expect(aaaa.stdout.trim()).toBe(ADDRESS.nodeTunnel6);
    // A name the resolver answers itself (a reserved top-level domain): NXDOMAIN, not a timeout.
    const invalid = await buyer.exec(["dig", "+time=3", "+tries=2", "naijalink.invalid"]);
    expect(invalid.stdout).toContain("status: NXDOMAIN");
    expect(invalid.stdout).toContain(`SERVER: ${ADDRESS.nodeTunnel4}#53`);
    expect(await buyer.outerCount("dns")).toBe(0);
    // And logs none of them: not unbound, not the agent.
    const unboundLog = await fs.readFile(node.unboundLog, "utf8");
    expect(unboundLog).toContain("start of service");
    for (const name of [first, second, "naijalink.invalid"]) {
      expect(unboundLog).not.toContain(name);
      expect(node.agentOutput).not.toContain(name);
    }
  });

  it("refuses a query to the resolver from outside the tunnel", async () => {
    // A neighbour of the node routes to the tunnel address: unbound answers the pools only.
    await run(
      inNs(network.ns.inet, ["ip", "route", "replace", `${ADDRESS.pool4}`, "via", ADDRESS.nodeEgress]),
    );
    const neighbour = await runStatus(
      inNs(network.ns.inet, ["dig", "+time=3", "+tries=1", `@${ADDRESS.nodeTunnel4}`, `${nonce()}.${ZONE}`]),
    );
    expect(neighbour.stdout).toContain("status: REFUSED");
    expect(neighbour.stdout).not.toContain("ANSWER SECTION");
    // The buyer outside the tunnel, at the node's public address: nothing listens there.
    const outside = await buyer.exec([
      "dig",
      "+time=3",
      "+tries=1",
      `@${ADDRESS.nodePublic}`,
      `${nonce()}.${ZONE}`,
    ]);
    expect(outside.code).not.toBe(0);
    expect(outside.stdout).not.toContain("ANSWER SECTION");
  });

  it("lets peers reach nothing of the node but its resolver", async () => {
    const listener = `require("node:net").createServer((s) => s.end("node service\\n")).listen(8081, "::", () => console.log("up"))`;
    let output = "";
    const service = spawn("ip", ["netns", "exec", network.ns.node, process.execPath, "-e", listener], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    service.stdout.on("data", (chunk: Buffer) => (output += chunk));
    try {
      await waitFor("the node's service", async () => output.includes("up"), 15_000);
      const reach = async (namespace: string, host: string) =>
        (await runStatus(inNs(namespace, ["curl", "-sS", "--max-time", "3", `telnet://${host}:8081`])))
          .stdout;
      // From outside the tunnel the service answers, so a silence below is the firewall's doing.
      expect(await reach(network.ns.inet, ADDRESS.nodeEgress)).toContain("node service");
      for (const host of [ADDRESS.nodeTunnel4, `[${ADDRESS.nodeTunnel6}]`, ADDRESS.nodeEgress])
        expect(await reach(network.ns.buyer, host)).not.toContain("node service");
    } finally {
      service.kill("SIGTERM");
    }
  });

  it("tells /check that the visitor's DNS goes through the node after curl resolved a per-visit name", async () => {
    const visit = nonce();
    // What /check's page makes the browser do: look the name up, the request itself failing.
    await buyer.curl(["--connect-timeout", "1", `http://${visit}.${ZONE}/`], 3);
    const answer = await waitFor(
      "the agent to report the nonce",
      async () => {
        const response = await fetch(`${apiUrl}/api/check/dns?nonce=${visit}`);
        const body = (await response.json()) as { viaNode: boolean; server?: string };
        return body.viaNode ? body : undefined;
      },
      15_000,
      200,
    );
    expect(answer).toMatchObject({ viaNode: true, server: node.serverName });
    const never = await (await fetch(`${apiUrl}/api/check/dns?nonce=${nonce()}`)).json();
    expect(never).toMatchObject({ viaNode: false });
  });

  it("refuses IPv6 at once on a node without IPv6 egress, and nothing IPv6 leaves the outer interface", async () => {
    const before = await buyer.outerCount("ipv6");
    const attempt = await buyer.curl(
      [
        "-6",
        "--connect-timeout",
        "10",
        "-o",
        "/dev/null",
        "-w",
        "%{time_total}",
        `http://[${ADDRESS.internet6}]:8080/`,
      ],
      15,
    );
    // curl 7: could not connect (an ICMPv6 unreachable); 28 would be a timeout.
    expect(attempt.code).toBe(7);
    expect(Number(attempt.stdout)).toBeLessThan(1);
    expect(await buyer.outerCount("ipv6")).toBe(before);
    console.log(
      `[tunnel] curl -6 on a node without IPv6 egress failed after ${attempt.stdout} s: ${attempt.stderr.trim()}`,
    );
  });
  it("lets peers' IPv6 out through the node's IPv6 egress (NAT66) once it has one and setup runs again", async () => {
    await node.exec([
      "ip",
      "address",
      "add",
      `${ADDRESS.nodeEgress6}/64`,
      "dev",
      network.link.nodeEgress,
      "nodad",
    ]);
    await run(
      inNs(network.ns.inet, [
        "ip",
        "address",
        "add",
        `${ADDRESS.internetV6}/64`,
        "dev",
        network.link.inet,
        "nodad",
      ]),
    );
    const output = await node.setup();
    expect(output).toContain("nft -f -");
    const table = await node.exec(["nft", "list", "table", "inet", "naijalink"]);
    expect(table).not.toContain("reject");
    expect(table).toContain(`ip6 saddr ${ADDRESS.pool6} oifname "${network.link.nodeEgress}" masquerade`);
    const before = await buyer.outerCount("ipv6");
    const seen = await buyer.curl(["-6", `http://[${ADDRESS.internetV6}]:8080/`], 10);
    expect(seen.stdout).toBe(ADDRESS.nodeEgress6);
    expect(await buyer.outerCount("ipv6")).toBe(before);
  });
});
