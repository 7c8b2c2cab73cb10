import { describe, expect, it } from "vitest";
import type { FirewallFacts, IptablesFamilyFacts } from "./firewall.ts";
import { nftTable } from "./nft-table.ts";
import { applied, commands, freshHost, server, settings, unit } from "./plan-fixtures.ts";
import { buildSetupPlan } from "./plan.ts";
import { UNBOUND_CONFIG } from "./resolver.ts";

describe("setup's plan", () => {
  it("prepares a fresh host: interface and MTU, forwarding, rules, the resolver, the unit", () => {
    const plan = buildSetupPlan(freshHost(), settings());
    expect(commands(plan.steps)).toEqual([
      "write /var/lib/naijalink-agent/setup.json",
      "ip link add wg0 type wireguard",
      "wg set wg0 listen-port 51820",
      "ip link set wg0 mtu 1280",
      "ip address add 10.66.0.1/16 dev wg0",
      "ip address add fd66::1/64 dev wg0",
      "ip link set wg0 up",
      "sysctl -qw net.ipv4.ip_forward=1",
      "sysctl -qw net.ipv6.conf.all.forwarding=1",
      "nft -f -",
      "apt-get install -y -q unbound",
      `write ${UNBOUND_CONFIG}`,
      "unbound-checkconf",
      "systemctl enable unbound",
      "systemctl restart unbound",
      `write ${unit.path}`,
      "systemctl daemon-reload",
      "systemctl enable naijalink-agent.service",
      "systemctl start naijalink-agent.service",
    ]);
    expect(plan.steps.find((step) => step.kind === "run" && step.argv[0] === "apt-get")).toMatchObject({
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
    expect(plan.record).toMatchObject({
      createdInterface: true,
      sysctlBefore: { "net.ipv4.ip_forward": "0", "net.ipv6.conf.all.forwarding": "0" },
      unitFile: unit.path,
      resolver: { installedUnbound: true, startedUnbound: false },
    });
  });

  it("uses wireguard-go when the kernel has no WireGuard module", () => {
    const [, create] = buildSetupPlan(freshHost({ kernelWireGuard: false }), settings()).steps;
    expect(create).toMatchObject({
      argv: ["wireguard-go", "wg0"],
      env: { WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
    });
  });

  it("changes nothing on a host it already set up", () => {
    const first = buildSetupPlan(freshHost(), settings());
    const second = buildSetupPlan(applied(freshHost(), first), settings());
    expect(second.steps).toEqual([]);
    // and remembers the values from before the first run, and that it installed unbound
    expect(second.record.sysctlBefore["net.ipv4.ip_forward"]).toBe("0");
    expect(second.record.resolver).toEqual({ installedUnbound: true, startedUnbound: false });
  });

  it("clamps TCP MSS to the route MTU both ways, as the first rules of the forward chain", () => {
    const table = nftTable({ ...settings(), ipv6Egress: true });
    const forward = table.slice(table.indexOf("chain forward"), table.indexOf("chain prerouting"));
    expect(forward.split("\n").slice(2, 4).join("\n")).toBe(
      [
        '\t\tiifname "wg0" tcp flags syn tcp option maxseg size set rt mtu',
        '\t\toifname "wg0" tcp flags syn tcp option maxseg size set rt mtu',
      ].join("\n"),
    );
  });

  it("redirects the alternate UDP ports to the listen port, for the node's own addresses only", () => {
    const table = nftTable({
      ...settings({ listenPort: 51820, server: { ...server, alternatePorts: [443, 53] } }),
      ipv6Egress: true,
    });
    expect(table).toContain(
      "\tchain prerouting {\n\t\ttype nat hook prerouting priority dstnat; policy accept;\n" +
        '\t\tiifname != "wg0" fib daddr type local udp dport 443 redirect to :51820\n' +
        '\t\tiifname != "wg0" fib daddr type local udp dport 53 redirect to :51820\n\t}',
    );
    expect(
      nftTable({ ...settings({ server: { ...server, alternatePorts: [] } }), ipv6Egress: true }),
    ).not.toContain("prerouting");
  });

  it("lets peers reach the resolver and nothing else of the node", () => {
    const input = (resolver: boolean) => {
      const table = nftTable({ ...settings({ server: { ...server, resolver } }), ipv6Egress: true });
      return table.slice(table.indexOf("chain input"), table.indexOf("chain forward"));
    };
    expect(input(true)).toBe(
      [
        "chain input {",
        "\t\ttype filter hook input priority filter; policy accept;",
        '\t\tiifname "wg0" ct state established,related accept',
        '\t\tiifname "wg0" ip daddr 10.66.0.1 meta l4proto { tcp, udp } th dport 53 accept',
        '\t\tiifname "wg0" ip6 daddr fd66::1 meta l4proto { tcp, udp } th dport 53 accept',
        '\t\tiifname "wg0" drop',
        "\t}\n\n\t",
      ].join("\n"),
    );
    expect(input(false)).not.toContain("dport 53");
    expect(input(false)).toContain('iifname "wg0" drop');
  });

  it("refuses peers' IPv6 at once without IPv6 egress, and masquerades it with one", () => {
    const without = nftTable({ ...settings(), ipv6Egress: false });
    expect(without).toContain(
      '\t\tiifname "wg0" oifname "wg0" drop\n\t\tiifname "wg0" reject with icmpv6 addr-unreachable\n' +
        '\t\tiifname "wg0" oifname "eth0" accept',
    );
    expect(without).not.toContain("ip6 saddr");
    const withEgress = nftTable({ ...settings(), ipv6Egress: true });
    expect(withEgress).not.toContain("reject");
    expect(withEgress).toContain('ip6 saddr fd66::/64 oifname "eth0" masquerade');
    // Setup reads which one the host is.
    const step = (ipv6Egress: boolean) =>
      buildSetupPlan(freshHost({ ipv6Egress }), settings()).steps.find(
        (s) => s.kind === "run" && s.argv[0] === "nft",
      );
    expect(step(false)).toMatchObject({
      input: expect.stringContaining("reject with icmpv6 addr-unreachable"),
    });
    expect(step(true)).toMatchObject({ input: expect.not.stringContaining("reject") });
  });

  it("lets peers out through the egress interfaces only, masquerading both pools", () => {
    const table = nftTable({ ...settings({ egress: ["eth0", "eth1"] }), ipv6Egress: true });
    expect(table).toContain('iifname "wg0" oifname "wg0" drop');
    expect(table).toContain('iifname "wg0" oifname { "eth0", "eth1" } accept\n\t\tiifname "wg0" drop');
    expect(table).toContain('ip saddr 10.66.0.0/16 oifname { "eth0", "eth1" } masquerade');
    expect(table).toContain('ip6 saddr fd66::/64 oifname { "eth0", "eth1" } masquerade');
    const step = buildSetupPlan(freshHost(), settings()).steps.find(
      (s) => s.kind === "run" && s.argv[0] === "nft",
    );
    // One transaction that replaces the table whether or not it exists.
    expect(step).toMatchObject({
      input: `table inet naijalink\ndelete table inet naijalink\n${nftTable({ ...settings(), ipv6Egress: false })}`,
    });
  });

  it("uses its own iptables chains where nftables is absent, and leaves them when current", () => {
    const none: IptablesFamilyFacts = {
      rules: {
        "NAIJALINK-INPUT": null,
        "NAIJALINK-FORWARD": null,
        "NAIJALINK-PREROUTING": null,
        "NAIJALINK-POSTROUTING": null,
      },
      jumps: {
        "NAIJALINK-INPUT": false,
        "NAIJALINK-FORWARD": false,
        "NAIJALINK-PREROUTING": false,
        "NAIJALINK-POSTROUTING": false,
      },
    };
    const firewall: FirewallFacts = { tool: "iptables", v4: none, v6: none };
    const steps = buildSetupPlan(freshHost({ firewall }), settings()).steps.filter(
      (step) => step.kind === "run" && step.argv[0]!.endsWith("tables-restore"),
    );
    expect(commands(steps)).toEqual(["iptables-restore --noflush", "ip6tables-restore --noflush"]);
    const [v4, v6] = steps.map((step) => (step as { input: string }).input);
    expect(v4).toContain(
      ":NAIJALINK-FORWARD - [0:0]\n" +
        "-A NAIJALINK-FORWARD -i wg0 -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu\n" +
        "-A NAIJALINK-FORWARD -o wg0 -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu\n" +
        "-A NAIJALINK-FORWARD -i wg0 -o wg0 -j DROP",
    );
    expect(v4).toContain("-I FORWARD 1 -j NAIJALINK-FORWARD");
    expect(v4).toContain("-A NAIJALINK-INPUT -d 10.66.0.1/32 -i wg0 -p udp -m udp --dport 53 -j ACCEPT");
    expect(v4).toContain("-A NAIJALINK-INPUT -i wg0 -j DROP\n");
    expect(v4).toContain(
      "-A NAIJALINK-PREROUTING ! -i wg0 -p udp -m addrtype --dst-type LOCAL -m udp --dport 443 -j REDIRECT --to-ports 51820",
    );
    expect(v4).toContain("-I PREROUTING 1 -j NAIJALINK-PREROUTING");
    expect(v4).toContain("-A NAIJALINK-POSTROUTING -s 10.66.0.0/16 -o eth0 -j MASQUERADE");
    expect(v4).not.toContain("REJECT");
    // Without IPv6 egress: refused at once, not masqueraded.
    expect(v6).toContain("-A NAIJALINK-FORWARD -i wg0 -j REJECT --reject-with icmp6-addr-unreachable");
    expect(v6).toContain("-A NAIJALINK-INPUT -d fd66::1/128 -i wg0 -p tcp -m tcp --dport 53 -j ACCEPT");
    expect(v6).not.toContain("MASQUERADE");

    const current = (text: string): IptablesFamilyFacts => {
      const rules = (chain: string) => text.split("\n").filter((line) => line.startsWith(`-A ${chain} `));
      const chains = [
        "NAIJALINK-INPUT",
        "NAIJALINK-FORWARD",
        "NAIJALINK-PREROUTING",
        "NAIJALINK-POSTROUTING",
      ] as const;
      return {
        rules: Object.fromEntries(
          chains.map((chain) => [chain, rules(chain)]),
        ) as IptablesFamilyFacts["rules"],
        jumps: Object.fromEntries(chains.map((chain) => [chain, true])) as IptablesFamilyFacts["jumps"],
      };
    };
    const setUp: FirewallFacts = { tool: "iptables", v4: current(v4!), v6: current(v6!) };
    const again = buildSetupPlan(freshHost({ firewall: setUp }), settings()).steps;
    expect(commands(again).filter((command) => command.includes("tables"))).toEqual([]);
  });

  it("moves the interface and the resolver to new addresses when the control plane changed them", () => {
    const facts = applied(freshHost(), buildSetupPlan(freshHost(), settings()));
    const moved = { ...server, ipv4: "10.67.0.1/16", ipv4Pool: "10.67.0.0/16" };
    expect(commands(buildSetupPlan(facts, settings({ server: moved })).steps)).toEqual([
      "write /var/lib/naijalink-agent/setup.json",
      "ip address del 10.66.0.1/16 dev wg0",
      "ip address add 10.67.0.1/16 dev wg0",
      "nft -f -",
      `write ${UNBOUND_CONFIG}`,
      "unbound-checkconf",
      "systemctl restart unbound",
    ]);
  });

  it("keeps router advertisements on an egress that takes them, and restarts the agent for a new unit", () => {
    const facts = freshHost({ sysctl: { ...freshHost().sysctl, "net.ipv6.conf.eth0.accept_ra": "1" } });
    expect(commands(buildSetupPlan(facts, settings()).steps)).toContain(
      "sysctl -qw net.ipv6.conf.eth0.accept_ra=2",
    );
    const running = applied(freshHost(), buildSetupPlan(freshHost(), settings()));
    const newUnit = { ...unit, text: `${unit.text}Restart=always\n` };
    expect(commands(buildSetupPlan(running, settings({ unit: newUnit })).steps)).toEqual([
      `write ${unit.path}`,
      "systemctl daemon-reload",
      "systemctl restart naijalink-agent.service",
    ]);
  });

  it("leaves systemd alone with --no-systemd", () => {
    const steps = buildSetupPlan(freshHost({ unit: null }), settings({ unit: null })).steps;
    expect(commands(steps).filter((command) => /systemctl|\.service/.test(command))).toEqual([
      "systemctl enable unbound",
      "systemctl restart unbound",
    ]);
  });

  it("sets the clients' MTU on an operator's interface and records the one it had", () => {
    const own = freshHost({
      iface: { exists: true, up: true, addresses: [server.ipv4, server.ipv6], listenPort: 51820, mtu: 1420 },
    });
    const plan = buildSetupPlan(own, settings({ unit: null }));
    expect(commands(plan.steps)).toContain("ip link set wg0 mtu 1280");
    expect(plan.record).toMatchObject({ createdInterface: false, mtuBefore: 1420 });
    // A later setup keeps the MTU from before the first one, for uninstall.
    const again = buildSetupPlan(applied(own, plan, settings({ unit: null })), settings({ unit: null }));
    expect(again.steps).toEqual([]);
    expect(again.record.mtuBefore).toBe(1420);
  });
});
