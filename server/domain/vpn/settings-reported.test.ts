// What a node's settings report does to what configs carry (decisions 129 and 133): only the
// desired version reported applied without error moves the configs' ports and resolver, and only
// a port taken away or a resolver switched (or the MTU) outdates configs handed out before.
import { describe, expect, it } from "vitest";
import type { VpnServer } from "#server/db/schema/index.ts";
import { settingsReported } from "./nodes.ts";

const now = new Date("2026-11-29T05:00:00Z");
const server = (fields: Partial<VpnServer>) =>
  ({
    clientMtu: 1280,
    appliedClientMtu: 1280,
    alternatePorts: [443, 4500],
    appliedAlternatePorts: [443],
    nodeResolver: true,
    appliedNodeResolver: true,
    settingsVersion: 5,
    appliedSettingsVersion: 4,
    appliedSettingsAt: new Date("2026-11-29T04:00:00Z"),
    settingsApplyError: null,
    ...fields,
  }) as VpnServer;
const report = (version: number, error?: string) => ({
  publicKey: "",
  peers: [],
  settings: { version, mtu: 1280, ...(error ? { error } : {}) },
});

describe("a node's settings report", () => {
  it("moves the configs' ports only when the desired version is reported applied without error", () => {
    expect(settingsReported(server({}), report(4), now).columns).toMatchObject({
      appliedAlternatePorts: [443],
    });
    expect(settingsReported(server({}), report(5, "nft: permission denied"), now).columns).toMatchObject({
      appliedAlternatePorts: [443],
      settingsApplyError: "nft: permission denied",
    });
    const applied = settingsReported(server({}), report(5), now);
    expect(applied.columns).toMatchObject({ appliedAlternatePorts: [443, 4500], appliedNodeResolver: true });
    expect(applied.configsChanged, "an added port outdates no config").toBe(false);
  });

  it("outdates configs when the node drops a port they may use, or switches the resolver they name", () => {
    const dropped = settingsReported(
      server({ alternatePorts: [], appliedAlternatePorts: [443] }),
      report(5),
      now,
    );
    expect(dropped.columns.appliedAlternatePorts).toEqual([]);
    expect(dropped.configsChanged).toBe(true);
    const switched = settingsReported(
      server({ nodeResolver: false, appliedAlternatePorts: [443, 4500] }),
      report(5),
      now,
    );
    expect(switched.columns.appliedNodeResolver).toBe(false);
    expect(switched.configsChanged).toBe(true);
    expect(
      settingsReported(server({ appliedAlternatePorts: [443, 4500] }), report(5), now).configsChanged,
    ).toBe(false);
  });

  it("takes the desired values for a server no node had reported before (nothing applied recorded)", () => {
    const first = settingsReported(
      server({ appliedAlternatePorts: null, appliedNodeResolver: null, appliedSettingsVersion: null }),
      report(5),
      now,
    );
    expect(first.columns).toMatchObject({ appliedAlternatePorts: [443, 4500], appliedNodeResolver: true });
    expect(first.configsChanged).toBe(false);
  });
});
