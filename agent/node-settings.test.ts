import { describe, expect, it } from "vitest";
import { createSettingsApplier, type SettingsHost } from "./node-settings.ts";
import { applied, freshHost, server, settings } from "./setup/plan-fixtures.ts";
import { buildSetupPlan, type HostFacts, type Step } from "./setup/plan.ts";

/** A host setup prepared, whose MTU the fake `ip link set` changes; `fail` makes a step fail. */
function fakeHost(options: { fail?: (step: Step) => boolean } = {}) {
  const fresh = freshHost();
  let facts: HostFacts = applied(fresh, buildSetupPlan(fresh, settings()));
  const ran: string[] = [];
  const host: SettingsHost = {
    readFacts: () => Promise.resolve(facts),
    applyStep: (step) => {
      if (options.fail?.(step)) return Promise.reject(new Error("ip: Operation not permitted"));
      ran.push(step.kind === "run" ? step.argv.join(" ") : `${step.kind} ${step.path}`);
      if (step.kind === "run" && step.argv[0] === "ip" && step.argv[4] === "mtu")
        facts = { ...facts, iface: { ...facts.iface, mtu: Number(step.argv[5]) } };
      if (step.kind === "write" && step.path.endsWith("setup.json"))
        facts = { ...facts, recordText: step.content };
      return Promise.resolve();
    },
  };
  return { host, ran };
}

const quiet = () => undefined;

describe("the agent's node settings", () => {
  it("applies a new settings version once and reports it with the interface's MTU", async () => {
    const { host, ran } = fakeHost();
    let reports = 0;
    const applier = createSettingsApplier({
      iface: "wg0",
      recordFile: "/var/lib/naijalink-agent/setup.json",
      log: quiet,
      onApplied: () => (reports += 1),
      host,
    });
    expect(applier.report).toBeUndefined();
    await applier.take({ ...server, mtu: 1380, settingsVersion: 5 });
    expect(ran).toEqual(["write /var/lib/naijalink-agent/setup.json", "ip link set wg0 mtu 1380"]);
    expect(applier.report).toEqual({ version: 5, mtu: 1380 });
    expect(reports).toBe(1);
    // The same settings again (a peer change): nothing run, nothing reported.
    await applier.take({ ...server, mtu: 1380, settingsVersion: 5 });
    expect(ran).toHaveLength(2);
    expect(reports).toBe(1);
  });

  it("reports a failed apply with its reason and the MTU the interface kept, and retries it", async () => {
    let failing = true;
    const { host, ran } = fakeHost({
      fail: (step) => failing && step.kind === "run" && step.argv[0] === "ip",
    });
    const applier = createSettingsApplier({
      iface: "wg0",
      recordFile: "/var/lib/naijalink-agent/setup.json",
      log: quiet,
      onApplied: quiet,
      host,
    });
    await applier.take({ ...server, mtu: 1400, settingsVersion: 6 });
    expect(applier.report).toEqual({ version: 6, mtu: 1280, error: "ip: Operation not permitted" });
    failing = false;
    await applier.retry();
    expect(ran).toContain("ip link set wg0 mtu 1400");
    expect(applier.report).toEqual({ version: 6, mtu: 1400 });
  });
});
