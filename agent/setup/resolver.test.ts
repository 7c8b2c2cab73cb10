import { describe, expect, it } from "vitest";
import { applied, commands, freshHost, server, settings } from "./plan-fixtures.ts";
import { buildSetupPlan, buildUninstallPlan } from "./plan.ts";
import { UNBOUND_CONFIG, unboundConfig, type ResolverFacts } from "./resolver.ts";

const standalone: ResolverFacts = {
  installed: true,
  configText: null,
  systemd: false,
  running: false,
  enabled: false,
};
const configOf = (steps: ReturnType<typeof buildSetupPlan>["steps"]) =>
  (steps.find((step) => step.kind === "write" && step.path === UNBOUND_CONFIG) as { content: string })
    .content;

describe("the node's resolver", () => {
  it("listens on the interface's own addresses only, answers the pools only and logs no query", () => {
    const lines = unboundConfig(server, 9553).split("\n");
    expect(lines.filter((line) => line.includes("interface:"))).toEqual([
      "    interface: 10.66.0.1",
      "    interface: fd66::1",
    ]);
    expect(lines.filter((line) => line.includes("access-control:"))).toEqual([
      "    access-control: 0.0.0.0/0 refuse",
      "    access-control: ::/0 refuse",
      "    access-control: 10.66.0.0/16 allow",
      "    access-control: fd66::/64 allow",
    ]);
    expect(lines).toContain("    log-queries: no");
    expect(lines).toContain("    log-replies: no");
    expect(lines.some((line) => /verbosity|logfile|log-queries: yes/.test(line))).toBe(false);
  });

  it("hands the /check zone to the agent's answerer on 127.0.0.1, and nothing without a zone", () => {
    const text = unboundConfig(server, 9553);
    expect(text).toContain(
      'stub-zone:\n    name: "dns-check.internal"\n    stub-addr: 127.0.0.1@9553\n    stub-no-cache: yes',
    );
    expect(text).toContain('    domain-insecure: "dns-check.internal"');
    expect(unboundConfig({ ...server, dnsCheckZone: undefined }, 9553)).not.toMatch(/stub|localhost/);
    expect(unboundConfig(server, 0)).not.toMatch(/stub|localhost/);
  });

  it("is left alone, peers reaching nothing of the node, when the server has no resolver", () => {
    const plan = buildSetupPlan(freshHost(), settings({ server: { ...server, resolver: false } }));
    expect(commands(plan.steps).filter((command) => /unbound/.test(command))).toEqual([]);
  });

  it("goes when the operator opts out after a setup with it", () => {
    const facts = applied(freshHost(), buildSetupPlan(freshHost(), settings()));
    const off = settings({ server: { ...server, resolver: false } });
    expect(commands(buildSetupPlan(facts, off).steps).filter((command) => /unbound/.test(command))).toEqual([
      `remove ${UNBOUND_CONFIG}`,
      "systemctl restart unbound",
    ]);
  });

  it("is started with unbound-control on a host without systemd, and stopped by uninstall", () => {
    const plan = buildSetupPlan(freshHost({ resolver: standalone, unit: null }), settings({ unit: null }));
    expect(commands(plan.steps).filter((command) => /unbound/.test(command))).toEqual([
      `write ${UNBOUND_CONFIG}`,
      "unbound-checkconf",
      "unbound-control start",
    ]);
    expect(plan.record.resolver).toEqual({ installedUnbound: false, startedUnbound: true });
    const running = { ...standalone, running: true, configText: configOf(plan.steps) };
    const facts = {
      ...applied(freshHost({ resolver: running, unit: null }), plan, settings({ unit: null })),
    };
    // A changed configuration needs a restart: a reload keeps the old listening addresses.
    const moved = settings({
      unit: null,
      server: { ...server, ipv4: "10.67.0.1/16", ipv4Pool: "10.67.0.0/16" },
    });
    expect(commands(buildSetupPlan(facts, moved).steps).filter((command) => /unbound/.test(command))).toEqual(
      [`write ${UNBOUND_CONFIG}`, "unbound-checkconf", "unbound-control stop", "unbound-control start"],
    );
    const uninstall = buildUninstallPlan(facts, { iface: "wg0", recordFile: "/r.json", unitPath: null });
    expect(commands(uninstall).filter((command) => /unbound/.test(command))).toEqual([
      `remove ${UNBOUND_CONFIG}`,
      "unbound-control stop",
    ]);
  });
});
