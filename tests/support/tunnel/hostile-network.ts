// A buyer's network and a VPN node, in network namespaces of this run (decision 093):
//
//   buyer ──────── router ═══ hop ═══ node ──────────── internet host
//   192.0.2.2      192.0.2.1          203.0.113.10       203.0.113.129 ── 203.0.113.200
//   2001:db8:b::2  203.0.113.1        wg 10.99.0.1, fd99::1              fe80::200, no IPv6 route on
//                                     ║ 198.51.100.x/30 to the app (root namespace)
//
// The hop (router ↔ node) is where the buyer's network turns hostile: its MTU (1400 on a
// PPPoE-like path, 1500 for the bench), and the router's rules (`setHop`): dropping IP fragments
// and "fragmentation needed" / "packet too big", or UDP port 51820. The node has an IPv6 default
// route (via the internet host's link-local address) but no global IPv6 address: no IPv6 egress,
// and the internet host drops IPv6 silently, as a provider without IPv6 does.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { addAddress, addNamespace, addVethPair, endNamespace, inNs, run, runAll } from "./host.ts";
import { startInternetHost } from "./internet-host.ts";

export const ADDRESS = {
  buyer: "192.0.2.2",
  buyerGateway: "192.0.2.1",
  buyer6: "2001:db8:b::2",
  buyerGateway6: "2001:db8:b::1",
  routerWan: "203.0.113.1",
  nodePublic: "203.0.113.10",
  nodeEgress: "203.0.113.129",
  internet: "203.0.113.200",
  internetLinkLocal: "fe80::200",
  /** An address on the IPv6 internet, which the internet host drops (a provider without IPv6). */
  internet6: "2001:db8:ffff::80",
  /** IPv6 egress, when a test gives the node one: its address and the internet host's. */
  nodeEgress6: "2001:db8:e::129",
  internetV6: "2001:db8:e::200",
  /** The internet host's address for the raw path: routed outside the buyer's tunnel (the bench). */
  internetRaw: "203.0.113.201",
  pool4: "10.99.0.0/24",
  pool6: "fd99::/64",
  nodeTunnel4: "10.99.0.1",
  nodeTunnel6: "fd99::1",
} as const;

export interface HopRules {
  /** Drop IP fragments, ICMP "fragmentation needed" and ICMPv6 "packet too big" (a PMTU black hole). */
  dropFragmentsAndPmtu?: boolean;
  /** UDP ports the router drops, either way. */
  dropUdpPorts?: number[];
}

/** A free /30 in 198.51.100.0/24 for the link to the root namespace (another run may hold one). */
async function freeControlSubnet(): Promise<number> {
  const routes = await run(["ip", "-4", "route", "show"]);
  for (let tries = 0; tries < 64; tries += 1) {
    const base = ((process.pid + tries) % 64) * 4;
    if (!routes.includes(`198.51.100.${base}/30`)) return base;
  }
  throw new Error("no free /30 in 198.51.100.0/24 for the control link");
}

export class HostileNetwork {
  readonly ns: { buyer: string; router: string; node: string; inet: string };
  readonly link: Record<
    "buyer" | "routerLan" | "routerWan" | "nodeWan" | "nodeEgress" | "inet" | "root" | "nodeControl",
    string
  >;
  /** The WireGuard interfaces: the node's (setup makes it) and the buyer's. */
  readonly wg: { node: string; buyer: string };
  readonly control: { root: string; node: string };

  private constructor(
    readonly tag: string,
    readonly workDir: string,
    controlBase: number,
  ) {
    const id = `${tag}${process.pid % 100_000}`;
    this.ns = { buyer: `nl-${id}-b`, router: `nl-${id}-r`, node: `nl-${id}-n`, inet: `nl-${id}-i` };
    this.link = {
      buyer: `nb${id}`,
      routerLan: `nrl${id}`,
      routerWan: `nrw${id}`,
      nodeWan: `nnw${id}`,
      nodeEgress: `nne${id}`,
      inet: `ni${id}`,
      root: `nc${id}`,
      nodeControl: `nnc${id}`,
    };
    this.wg = { node: `nwn${id}`, buyer: `nwb${id}` };
    this.control = { root: `198.51.100.${controlBase + 1}`, node: `198.51.100.${controlBase + 2}` };
  }

  /** The namespaces and their links; `hopMtu` on both ends of the router ↔ node hop. */
  static async create(tag: string, options: { hopMtu: number }): Promise<HostileNetwork> {
    const workDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-hostile-"));
    const network = new HostileNetwork(tag, workDir, await freeControlSubnet());
    try {
      await network.build(options.hopMtu);
    } catch (error) {
      await network.remove();
      throw error;
    }
    return network;
  }

  private async build(hopMtu: number) {
    const { ns, link } = this;
    for (const name of Object.values(ns)) await addNamespace(name);
    const route = (namespace: string, argv: string[]) => run(inNs(namespace, ["ip", ...argv]));

    await addVethPair(
      { namespace: ns.buyer, name: link.buyer, address: `${ADDRESS.buyer}/24` },
      { namespace: ns.router, name: link.routerLan, address: `${ADDRESS.buyerGateway}/24` },
    );
    await addVethPair(
      { namespace: ns.router, name: link.routerWan, address: `${ADDRESS.routerWan}/25` },
      { namespace: ns.node, name: link.nodeWan, address: `${ADDRESS.nodePublic}/25` },
      hopMtu,
    );
    await addVethPair(
      { namespace: ns.node, name: link.nodeEgress, address: `${ADDRESS.nodeEgress}/25` },
      { namespace: ns.inet, name: link.inet, address: `${ADDRESS.internet}/25` },
    );
    await addVethPair(
      { namespace: null, name: link.root, address: `${this.control.root}/30` },
      { namespace: ns.node, name: link.nodeControl, address: `${this.control.node}/30` },
    );

    await addAddress(ns.buyer, `${ADDRESS.buyer6}/64`, link.buyer);
    await route(ns.buyer, ["-4", "route", "add", "default", "via", ADDRESS.buyerGateway]);
    await route(ns.buyer, ["-6", "route", "add", "default", "via", ADDRESS.buyerGateway6]);

    await addAddress(ns.router, `${ADDRESS.buyerGateway6}/64`, link.routerLan);
    await route(ns.router, ["route", "add", "203.0.113.128/25", "via", ADDRESS.nodePublic]);
    await run(inNs(ns.router, ["sysctl", "-qw", "net.ipv4.ip_forward=1"]));

    await route(ns.node, ["route", "add", "192.0.2.0/24", "via", ADDRESS.routerWan]);
    const viaInternetHost = ["via", ADDRESS.internetLinkLocal, "dev", link.nodeEgress];
    await route(ns.node, ["-6", "route", "add", "default", ...viaInternetHost]);

    await addAddress(ns.inet, `${ADDRESS.internetRaw}/25`, link.inet);
    await addAddress(ns.inet, `${ADDRESS.internetLinkLocal}/64`, link.inet);
    await route(ns.inet, ["route", "add", "default", "via", ADDRESS.nodeEgress]);
    // No IPv6 beyond the node: what reaches the internet host for the IPv6 internet vanishes.
    await run(inNs(ns.inet, ["nft", "-f", "-"]), {
      input: `table inet upstream {\n\tchain prerouting {\n\t\ttype filter hook prerouting priority -300; policy accept;\n\t\tip6 daddr 2001:db8:ffff::/48 drop\n\t}\n}\n`,
    });
  }

  /** The internet host's web server (internet-host.ts). */
  startInternetHost(): Promise<void> {
    return startInternetHost(this.ns.inet);
  }

  /** Replaces the router's hostile rules (none: a plain router). */
  async setHop(rules: HopRules = {}) {
    const fragments = rules.dropFragmentsAndPmtu
      ? [
          "\t\tip frag-off & 0x3fff != 0 counter name fragments drop",
          "\t\texthdr frag exists counter name fragments drop",
        ]
      : [];
    const pmtu = rules.dropFragmentsAndPmtu
      ? [
          "\t\ticmp type destination-unreachable icmp code frag-needed counter name pmtu drop",
          "\t\ticmpv6 type packet-too-big counter name pmtu drop",
        ]
      : [];
    const ports = (rules.dropUdpPorts ?? []).flatMap((port) => [
      `\t\tudp dport ${port} counter name ports drop`,
      `\t\tudp sport ${port} counter name ports drop`,
    ]);
    // Before conntrack's defragmentation (priority -400), which would hide the fragments.
    const table = [
      "table inet hop {",
      "\tcounter fragments {}",
      "\tcounter pmtu {}",
      "\tcounter ports {}",
      "\tchain prerouting {",
      "\t\ttype filter hook prerouting priority -450; policy accept;",
      ...fragments,
      ...ports,
      "\t}",
      "\tchain forward {",
      "\t\ttype filter hook forward priority filter; policy accept;",
      ...pmtu,
      "\t}",
      "\tchain output {",
      "\t\ttype filter hook output priority filter; policy accept;",
      ...pmtu,
      "\t}",
      "}",
      "",
    ].join("\n");
    await run(inNs(this.ns.router, ["nft", "-f", "-"]), {
      input: `table inet hop\ndelete table inet hop\n${table}`,
    });
  }

  /** Forgets every path MTU learned from ICMP, in every namespace of this network. */
  async forgetPathMtus(): Promise<void> {
    for (const namespace of Object.values(this.ns)) {
      await run(inNs(namespace, ["ip", "-4", "route", "flush", "cache"]));
      await run(inNs(namespace, ["ip", "-6", "route", "flush", "cache"]));
    }
  }

  /** Packets one of the router's counters (fragments, pmtu, ports) dropped. */
  async hopDropped(counter: "fragments" | "pmtu" | "ports"): Promise<number> {
    return nftCounter(this.ns.router, "hop", counter);
  }

  /** Removes everything this network made, each step whatever the others do. */
  async remove(): Promise<string[]> {
    return runAll([
      () => run(inNs(this.ns.node, ["ip", "link", "del", this.wg.node])),
      () => run(inNs(this.ns.buyer, ["ip", "link", "del", this.wg.buyer])),
      () => run(["ip", "link", "del", this.link.root]),
      ...Object.values(this.ns).map((name) => () => endNamespace(name)),
      () => fs.rm(this.workDir, { recursive: true, force: true }),
    ]);
  }
}

/** A named nftables counter's packets. */
export async function nftCounter(namespace: string, table: string, name: string): Promise<number> {
  const json = JSON.parse(
    await run(inNs(namespace, ["nft", "-j", "list", "counter", "inet", table, name])),
  ) as {
    nftables: Array<{ counter?: { packets: number } }>;
  };
  const counter = json.nftables.find((entry) => entry.counter)?.counter;
  if (!counter) throw new Error(`no counter ${name} in table inet ${table}`);
  return counter.packets;
}
