import { describe, expect, it } from "vitest";
import type { IptablesFamilyFacts } from "./firewall.ts";
import { applied, commands, freshHost, server, settings, unit } from "./plan-fixtures.ts";
import { buildSetupPlan, buildUninstallPlan, recordText } from "./plan.ts";
import { UNBOUND_CONFIG } from "./resolver.ts";

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
      `remove ${UNBOUND_CONFIG}`,
      "apt-get remove -y -q unbound",
      "ip link del wg0",
      "sysctl -qw net.ipv4.ip_forward=0",
      "sysctl -qw net.ipv6.conf.all.forwarding=0",
      "remove /var/lib/naijalink-agent/setup.json",
    ]);
  });

  it("keeps an interface the operator made, removing only the addresses setup added and its MTU", () => {
    const own = freshHost({
      iface: { exists: true, up: true, addresses: ["10.66.0.1/16"], listenPort: 51820, mtu: 1420 },
      resolver: { installed: true, configText: null, systemd: true, running: true, enabled: true },
    });
    const plan = buildSetupPlan(own, settings({ unit: null }));
    expect(plan.record).toMatchObject({
      createdInterface: false,
      addedAddresses: ["fd66::1/64"],
      mtuBefore: 1420,
    });
    const facts = { ...applied(own, plan, settings({ unit: null })), unit: null };
    expect(
      commands(buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null })),
    ).toEqual([
      "nft delete table inet naijalink",
      // unbound was the operator's: it stays, without our configuration
      `remove ${UNBOUND_CONFIG}`,
      "systemctl restart unbound",
      "ip link set wg0 mtu 1420",
      "ip address del fd66::1/64 dev wg0",
      "sysctl -qw net.ipv4.ip_forward=0",
      "sysctl -qw net.ipv6.conf.all.forwarding=0",
      "remove /r.json",
    ]);
  });

  it("without a record removes only what carries NaijaLink's name", () => {
    const facts = freshHost({
      unit: null,
      firewall: { tool: "nft", table: "table inet naijalink {}" },
      resolver: { installed: true, configText: "server:\n", systemd: true, running: true, enabled: true },
    });
    expect(
      commands(buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null })),
    ).toEqual(["nft delete table inet naijalink", `remove ${UNBOUND_CONFIG}`, "systemctl restart unbound"]);
  });

  it("removes all four iptables chains of both families, jumps first", () => {
    const present: IptablesFamilyFacts = {
      rules: {
        "NAIJALINK-INPUT": ["-A NAIJALINK-INPUT -i wg0 -j DROP"],
        "NAIJALINK-FORWARD": [],
        "NAIJALINK-PREROUTING": [],
        "NAIJALINK-POSTROUTING": [],
      },
      jumps: {
        "NAIJALINK-INPUT": true,
        "NAIJALINK-FORWARD": true,
        "NAIJALINK-PREROUTING": true,
        "NAIJALINK-POSTROUTING": false,
      },
    };
    const facts = freshHost({ unit: null, firewall: { tool: "iptables", v4: present, v6: present } });
    const steps = commands(
      buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null }),
    );
    expect(steps.filter((step) => step.startsWith("iptables "))).toEqual([
      "iptables -t filter -D INPUT -j NAIJALINK-INPUT",
      "iptables -t filter -F NAIJALINK-INPUT",
      "iptables -t filter -X NAIJALINK-INPUT",
      "iptables -t filter -D FORWARD -j NAIJALINK-FORWARD",
      "iptables -t filter -F NAIJALINK-FORWARD",
      "iptables -t filter -X NAIJALINK-FORWARD",
      "iptables -t nat -D PREROUTING -j NAIJALINK-PREROUTING",
      "iptables -t nat -F NAIJALINK-PREROUTING",
      "iptables -t nat -X NAIJALINK-PREROUTING",
      "iptables -t nat -F NAIJALINK-POSTROUTING",
      "iptables -t nat -X NAIJALINK-POSTROUTING",
    ]);
    expect(steps.filter((step) => step.startsWith("ip6tables ")).length).toBe(11);
  });

  it("records what it needs to undo", () => {
    const { record } = buildSetupPlan(freshHost(), settings());
    expect(JSON.parse(recordText(record))).toEqual(record);
    expect(record.server).toEqual(server);
  });
});
