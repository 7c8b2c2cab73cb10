import { describe, expect, it } from "vitest";
import { nftTable, type FirewallFacts } from "./firewall.ts";
import {
  buildSetupPlan,
  buildUninstallPlan,
  recordText,
  type HostFacts,
  type SetupSettings,
  type Step,
} from "./plan.ts";

const server = {
  name: "lagos-1",
  listenPort: 51820,
  ipv4: "10.66.0.1/16",
  ipv6: "fd66::1/64",
  ipv4Pool: "10.66.0.0/16",
  ipv6Pool: "fd66::/64",
};
const unit = { path: "/etc/systemd/system/naijalink-agent.service", text: "[Unit]\nDescription=agent\n" };
const settings = (overrides: Partial<SetupSettings> = {}): SetupSettings => ({
  iface: "wg0",
  egress: ["eth0"],
  listenPort: 51820,
  server,
  recordFile: "/var/lib/naijalink-agent/setup.json",
  unit,
  ...overrides,
});

/** A fresh Debian host: no interface, no forwarding, nftables, systemd. */
const freshHost = (overrides: Partial<HostFacts> = {}): HostFacts => ({
  kernelWireGuard: true,
  iface: { exists: false, up: false, addresses: [], listenPort: null },
  sysctl: {
    "net.ipv4.ip_forward": "0",
    "net.ipv6.conf.all.forwarding": "0",
    "net.ipv6.conf.eth0.accept_ra": "0",
  },
  firewall: { tool: "nft", table: null },
  unit: { text: null, enabled: false, active: false },
  recordText: null,
  ...overrides,
});

/** The host after `plan` was applied to `facts`. */
function applied(facts: HostFacts, plan: { steps: Step[] }, given = settings()): HostFacts {
  const sysctl = { ...facts.sysctl };
  for (const step of plan.steps) {
    if (step.kind === "run" && step.argv[0] === "sysctl") {
      const [key, value] = step.argv[2]!.split("=");
      sysctl[key!] = value!;
    }
  }
  const write = (path: string) => plan.steps.find((step) => step.kind === "write" && step.path === path);
  return {
    ...facts,
    iface: { exists: true, up: true, addresses: [server.ipv4, server.ipv6], listenPort: given.listenPort },
    sysctl,
    firewall: { tool: "nft", table: nftTable(given) },
    unit: given.unit ? { text: given.unit.text, enabled: true, active: true } : facts.unit,
    recordText: (write(given.recordFile) as { content: string } | undefined)?.content ?? facts.recordText,
  };
}

const commands = (steps: Step[]) =>
  steps.map((step) => (step.kind === "run" ? step.argv.join(" ") : `${step.kind} ${step.path}`));

describe("setup's plan", () => {
  it("prepares a fresh host with kernel WireGuard: interface, addresses, forwarding, rules, unit", () => {
    const plan = buildSetupPlan(freshHost(), settings());
    expect(commands(plan.steps)).toEqual([
      "write /var/lib/naijalink-agent/setup.json",
      "ip link add wg0 type wireguard",
      "wg set wg0 listen-port 51820",
      "ip address add 10.66.0.1/16 dev wg0",
      "ip address add fd66::1/64 dev wg0",
      "ip link set wg0 up",
      "sysctl -qw net.ipv4.ip_forward=1",
      "sysctl -qw net.ipv6.conf.all.forwarding=1",
      "nft -f -",
      `write ${unit.path}`,
      "systemctl daemon-reload",
      "systemctl enable naijalink-agent.service",
      "systemctl start naijalink-agent.service",
    ]);
    expect(plan.record).toMatchObject({
      createdInterface: true,
      sysctlBefore: { "net.ipv4.ip_forward": "0", "net.ipv6.conf.all.forwarding": "0" },
      unitFile: unit.path,
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
    // and remembers the values from before the first run
    expect(second.record.sysctlBefore["net.ipv4.ip_forward"]).toBe("0");
  });

  it("lets peers out through the egress interfaces only, masquerading both pools", () => {
    const table = nftTable(settings({ egress: ["eth0", "eth1"] }));
    expect(table).toContain('iifname "wg0" oifname "wg0" drop');
    expect(table).toContain('iifname "wg0" oifname { "eth0", "eth1" } accept\n\t\tiifname "wg0" drop');
    expect(table).toContain('ip saddr 10.66.0.0/16 oifname { "eth0", "eth1" } masquerade');
    expect(table).toContain('ip6 saddr fd66::/64 oifname { "eth0", "eth1" } masquerade');
    const step = buildSetupPlan(freshHost(), settings()).steps.find(
      (s) => s.kind === "run" && s.argv[0] === "nft",
    );
    // One transaction that replaces the table whether or not it exists.
    expect(step).toMatchObject({
      input: `table inet naijalink\ndelete table inet naijalink\n${nftTable(settings())}`,
    });
  });

  it("uses its own iptables chains where nftables is absent, and leaves them when current", () => {
    const none = { rules: { filter: null, nat: null }, jumps: { filter: false, nat: false } };
    const firewall: FirewallFacts = { tool: "iptables", v4: none, v6: none };
    const steps = buildSetupPlan(freshHost({ firewall }), settings()).steps.filter(
      (step) => step.kind === "run" && step.argv[0]!.endsWith("tables-restore"),
    );
    expect(commands(steps)).toEqual(["iptables-restore --noflush", "ip6tables-restore --noflush"]);
    const v4 = (steps[0] as { input: string }).input;
    expect(v4).toContain(":NAIJALINK-FORWARD - [0:0]\n-A NAIJALINK-FORWARD -i wg0 -o wg0 -j DROP");
    expect(v4).toContain("-I FORWARD 1 -j NAIJALINK-FORWARD");
    expect(v4).toContain("-A NAIJALINK-POSTROUTING -s 10.66.0.0/16 -o eth0 -j MASQUERADE");
    expect((steps[1] as { input: string }).input).toContain("-s fd66::/64 -o eth0 -j MASQUERADE");

    const current = (family: 4 | 6) => {
      const text = (steps[family === 4 ? 0 : 1] as { input: string }).input.split("\n");
      const rules = (chain: string) => text.filter((line) => line.startsWith(`-A ${chain} `));
      return {
        rules: { filter: rules("NAIJALINK-FORWARD"), nat: rules("NAIJALINK-POSTROUTING") },
        jumps: { filter: true, nat: true },
      };
    };
    const setUp: FirewallFacts = { tool: "iptables", v4: current(4), v6: current(6) };
    const again = buildSetupPlan(freshHost({ firewall: setUp }), settings()).steps;
    expect(commands(again).filter((command) => command.includes("tables"))).toEqual([]);
  });

  it("moves the interface to new addresses when the control plane changed them", () => {
    const facts = applied(freshHost(), buildSetupPlan(freshHost(), settings()));
    const moved = { ...server, ipv4: "10.67.0.1/16", ipv4Pool: "10.67.0.0/16" };
    expect(commands(buildSetupPlan(facts, settings({ server: moved })).steps)).toEqual([
      "write /var/lib/naijalink-agent/setup.json",
      "ip address del 10.66.0.1/16 dev wg0",
      "ip address add 10.67.0.1/16 dev wg0",
      "nft -f -",
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
    expect(commands(steps).filter((command) => /systemctl|\.service/.test(command))).toEqual([]);
  });
});

describe("uninstall's plan", () => {
  it("removes exactly what setup added and puts the kernel settings back", () => {
    const plan = buildSetupPlan(freshHost(), settings());
    const facts = applied(freshHost(), plan);
    expect(
      commands(
        buildUninstallPlan(facts, { iface: "wg0", recordFile: settings().recordFile, unitPath: unit.path }),
      ),
    ).toEqual([
      "systemctl disable --now naijalink-agent.service",
      `remove ${unit.path}`,
      "systemctl daemon-reload",
      "nft delete table inet naijalink",
      "ip link del wg0",
      "sysctl -qw net.ipv4.ip_forward=0",
      "sysctl -qw net.ipv6.conf.all.forwarding=0",
      "remove /var/lib/naijalink-agent/setup.json",
    ]);
  });

  it("keeps an interface the operator made, removing only the addresses setup added", () => {
    const own = freshHost({
      iface: { exists: true, up: true, addresses: ["10.66.0.1/16"], listenPort: 51820 },
    });
    const plan = buildSetupPlan(own, settings({ unit: null }));
    expect(plan.record).toMatchObject({ createdInterface: false, addedAddresses: ["fd66::1/64"] });
    const facts = { ...applied(own, plan, settings({ unit: null })), unit: null };
    expect(
      commands(buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null })),
    ).toEqual([
      "nft delete table inet naijalink",
      "ip address del fd66::1/64 dev wg0",
      "sysctl -qw net.ipv4.ip_forward=0",
      "sysctl -qw net.ipv6.conf.all.forwarding=0",
      "remove /r.json",
    ]);
  });

  it("without a record removes only what carries NaijaLink's name", () => {
    const facts = freshHost({ unit: null, firewall: { tool: "nft", table: "table inet naijalink {}" } });
    expect(
      commands(buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null })),
    ).toEqual(["nft delete table inet naijalink"]);
  });

  it("records what it needs to undo", () => {
    const { record } = buildSetupPlan(freshHost(), settings());
    expect(JSON.parse(recordText(record))).toEqual(record);
  });
});
