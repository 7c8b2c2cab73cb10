import { describe, expect, it } from "vitest";
import { nftTable } from "./nft-table.ts";
import { applied, commands, freshHost, server, settings } from "./plan-fixtures.ts";
import { buildSetupPlan, parseRecord, type HostFacts } from "./plan.ts";
import { UNBOUND_CONFIG } from "./resolver.ts";
import { buildSettingsPlan } from "./settings-plan.ts";

const recordFile = "/var/lib/naijalink-agent/setup.json";
/** A host setup prepared (systemd, nftables, unbound running with our file). */
const setUp = (): HostFacts => {
  const fresh = freshHost();
  return applied(fresh, buildSetupPlan(fresh, settings()));
};
const plan = (facts: HostFacts, changes: Partial<typeof server>) =>
  buildSettingsPlan(facts, {
    iface: "wg0",
    recordFile,
    server: { ...server, ...changes, settingsVersion: 2 },
  });

describe("the running agent's plan for changed node settings", () => {
  it("sets the interface MTU and records the server, touching nothing else", () => {
    const result = plan(setUp(), { mtu: 1380 });
    expect(result.unmanaged).toBeNull();
    expect(commands(result.steps)).toEqual([`write ${recordFile}`, "ip link set wg0 mtu 1380"]);
    const written = result.steps[0]!;
    expect(written.kind === "write" && parseRecord(written.content)?.server).toMatchObject({
      mtu: 1380,
      settingsVersion: 2,
    });
    // The record keeps what uninstall needs.
    expect(written.kind === "write" && parseRecord(written.content)).toMatchObject({
      createdInterface: true,
      egress: ["eth0"],
      firewall: "nft",
      dnsCheckPort: 9553,
      resolver: { installedUnbound: true },
    });
  });

  it("rebuilds the rules with setup's nft table when the alternate ports change", () => {
    const result = plan(setUp(), { alternatePorts: [4500, 53] });
    expect(commands(result.steps)).toEqual([`write ${recordFile}`, "nft -f -"]);
    const nft = result.steps[1]!;
    const wanted = nftTable({
      ...settings(),
      server: { ...server, alternatePorts: [4500, 53] },
      ipv6Egress: false,
    });
    expect(nft.kind === "run" && nft.input).toBe(
      `table inet naijalink\ndelete table inet naijalink\n${wanted}`,
    );
    expect(wanted).toContain("udp dport 4500 redirect to :51820");
    expect(wanted).not.toContain("dport 443");
  });

  it("removes the resolver (file, rules, restart) and puts it back with setup's configuration", () => {
    const away = plan(setUp(), { resolver: false });
    expect(commands(away.steps)).toEqual([
      `write ${recordFile}`,
      "nft -f -",
      `remove ${UNBOUND_CONFIG}`,
      "systemctl restart unbound",
    ]);
    const withoutResolver: HostFacts = {
      ...setUp(),
      firewall: {
        tool: "nft",
        table: nftTable({ ...settings(), server: { ...server, resolver: false }, ipv6Egress: false }),
      },
      resolver: { ...setUp().resolver, configText: null },
    };
    const back = plan(withoutResolver, { resolver: true });
    expect(commands(back.steps)).toEqual([
      `write ${recordFile}`,
      "nft -f -",
      `write ${UNBOUND_CONFIG}`,
      "unbound-checkconf",
      "systemctl restart unbound",
    ]);
  });

  it("restarts unbound with unbound-control on a host without systemd", () => {
    const host = setUp();
    const noSystemd: HostFacts = { ...host, resolver: { ...host.resolver, systemd: false, enabled: false } };
    expect(commands(plan(noSystemd, { resolver: false }).steps)).toEqual([
      `write ${recordFile}`,
      "nft -f -",
      `remove ${UNBOUND_CONFIG}`,
      "unbound-control stop",
      "unbound-control start",
    ]);
  });

  it("has nothing to do when the host already carries the settings", () => {
    const host = setUp();
    const record = parseRecord(host.recordText)!;
    const result = buildSettingsPlan(host, { iface: "wg0", recordFile, server: record.server });
    expect(result).toEqual({ steps: [], unmanaged: null });
  });

  it("without setup's record applies the MTU only, and says the rest is not applied", () => {
    const host: HostFacts = { ...setUp(), recordText: null };
    const result = plan(host, { mtu: 1400, alternatePorts: [4500] });
    expect(commands(result.steps)).toEqual(["ip link set wg0 mtu 1400"]);
    expect(result.unmanaged).toMatch(/no setup record for wg0 with its egress .*run setup once/);
    // An older setup's record (no egress) is no better.
    const old = JSON.parse(setUp().recordText!) as Record<string, unknown>;
    delete old.egress;
    const olderRecord = plan({ ...setUp(), recordText: JSON.stringify(old) }, { mtu: 1400 });
    expect(olderRecord.unmanaged).toMatch(/run setup once/);
  });

  it("refuses to work on an interface that is not there", () => {
    const host: HostFacts = { ...setUp(), iface: { ...setUp().iface, exists: false } };
    expect(plan(host, { mtu: 1400 })).toEqual({
      steps: [],
      unmanaged: "the interface wg0 does not exist: run setup",
    });
  });
});
