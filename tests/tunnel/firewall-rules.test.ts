// Setup's firewall with the real nft and iptables (decision 092), in a namespace of this run: the
// rules as the tools list them after setup applied them, so a second setup finds nothing to change,
// and uninstall leaves nothing of ours. What the rules say: the unit tests in agent/setup/.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endNamespace, run, tunnelUnavailableReason } from "../support/tunnel/host.ts";

const reason = tunnelUnavailableReason();
const mustRun = process.env.CI === "true";
if (reason && !mustRun) console.warn(`[tunnel] skipped: ${reason}`);
const namespace = `nl-fw-${process.pid % 100_000}`;
const ROOT = path.resolve(import.meta.dirname, "../..");

describe.skipIf(reason !== null && !mustRun)("setup's firewall with the real nft and iptables", () => {
  beforeAll(async () => {
    if (reason) throw new Error(`The tunnel test must run under CI=true but cannot: ${reason}`);
    await run(["ip", "netns", "add", namespace]);
  });
  afterAll(() => endNamespace(namespace));

  it.each([
    ["nft", "ipv6-egress"],
    ["nft", "no-ipv6-egress"],
    ["iptables", "ipv6-egress"],
    ["iptables", "no-ipv6-egress"],
  ])("%s, %s: applied, a second setup changes nothing and uninstall leaves nothing", async (tool, egress) => {
    const probe = path.join(ROOT, "tests/support/tunnel/firewall-probe.ts");
    const output = await run(
      ["ip", "netns", "exec", namespace, process.execPath, "--import", "tsx", probe, tool, egress],
      { timeoutMs: 60_000 },
    );
    const result = JSON.parse(output) as {
      first: number;
      again: string[];
      uninstall: number;
      left: string[];
    };
    expect(result.first).toBeGreaterThan(0);
    expect(result.again).toEqual([]);
    expect(result.uninstall).toBeGreaterThan(0);
    expect(result.left).toEqual([]);
  });
});
