// The agent's metrics port: Prometheus text on loopback only, peers read from the
// interface at scrape time, every apply timed and every failure counted.
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { parsePrometheusText, sampleValue } from "../tests/support/prometheus.ts";
import type { PeerApplier } from "./applier.ts";
import { createAgentMetrics, serveAgentMetrics, type MetricsServer } from "./metrics.ts";
import type { CheckedAnswer, NodeServer } from "./node-api.ts";

const server: NodeServer = {
  name: "ng-lagos-1",
  listenPort: 51820,
  ipv4: "10.66.0.1/16",
  ipv6: "fd66::1/64",
  ipv4Pool: "10.66.0.0/16",
  ipv6Pool: "fd66::/64",
  mtu: 1280,
  alternatePorts: [],
  resolver: false,
};
const PRESHARED = "c2VjcmV0LXByZXNoYXJlZC1rZXktb2YtMzItYnl0ZXM=";
const full: CheckedAnswer = {
  kind: "full",
  version: "41",
  server,
  refused: 0,
  peers: [
    {
      publicKey: "cGVlci1wdWJsaWMta2V5LW9mLXRoaXJ0eS10d28hIQ==",
      presharedKey: PRESHARED,
      allowedIps: ["10.66.0.2/32"],
    },
  ],
};
const change: CheckedAnswer = {
  kind: "changes",
  since: "41",
  version: "42",
  server,
  refused: 0,
  upserts: [],
  removals: [],
};

/** An applier that takes full sets and fails on changes, as one whose `wg set` is refused. */
function fakeApplier(): PeerApplier {
  let version: string | null = null;
  return {
    get version() {
      return version;
    },
    async take(answer) {
      if (answer.kind === "changes") throw new Error("wg set failed: Operation not permitted");
      version = answer.version;
    },
    async reconcile() {},
  };
}

let running: MetricsServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function scrape(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, families: parsePrometheusText(text) };
}

describe("the agent's metrics", () => {
  it("tell peers on the interface, the applied version, apply latency, failures and syncs", async () => {
    const metrics = createAgentMetrics();
    let peersOnInterface = 0;
    const applier = metrics.watch(fakeApplier(), async () => peersOnInterface);
    running = await serveAgentMetrics(metrics, { port: 0 });

    const before = await scrape(running.port);
    expect(sampleValue(before.families, "naijalink_agent_peers")).toBe(0);
    expect(sampleValue(before.families, "naijalink_agent_applied_peer_version")).toBe(0);
    expect(sampleValue(before.families, "naijalink_agent_apply_failures_total", { kind: "changes" })).toBe(0);

    await applier.take(full);
    peersOnInterface = 1;
    await expect(applier.take(change)).rejects.toThrow("Operation not permitted");
    await applier.reconcile("timer");
    metrics.syncFailed();
    metrics.synced(new Date("2026-11-24T01:00:00Z"));

    const { families, text } = await scrape(running.port);
    expect(applier.version).toBe("41");
    expect(sampleValue(families, "naijalink_agent_peers")).toBe(1);
    expect(sampleValue(families, "naijalink_agent_interface_up")).toBe(1);
    expect(sampleValue(families, "naijalink_agent_applied_peer_version")).toBe(41);
    const count = (kind: string) =>
      sampleValue(families, "naijalink_agent_apply_duration_seconds_count", { kind });
    expect([count("full"), count("changes"), count("reconcile")]).toEqual([1, 1, 1]);
    expect(sampleValue(families, "naijalink_agent_apply_failures_total", { kind: "changes" })).toBe(1);
    expect(sampleValue(families, "naijalink_agent_apply_failures_total", { kind: "full" })).toBe(0);
    expect(sampleValue(families, "naijalink_agent_sync_failures_total")).toBe(1);
    expect(sampleValue(families, "naijalink_agent_last_sync_timestamp_seconds")).toBe(
      Date.parse("2026-11-24T01:00:00Z") / 1000,
    );
    expect(families.get("process_resident_memory_bytes")?.type).toBe("gauge");
    expect(text, "no peer key in the figures").not.toContain(
      full.kind === "full" ? full.peers[0]!.publicKey : "",
    );
    expect(text).not.toContain(PRESHARED);
  });

  it("says when the interface cannot be read, keeping the last count it read", async () => {
    const metrics = createAgentMetrics();
    let readable = true;
    metrics.watch(fakeApplier(), async () => {
      if (!readable) throw new Error("wg show failed");
      return 7;
    });
    running = await serveAgentMetrics(metrics, { port: 0 });
    const first = (await scrape(running.port)).families;
    expect(sampleValue(first, "naijalink_agent_interface_up")).toBe(1);
    expect(sampleValue(first, "naijalink_agent_peers")).toBe(7);
    readable = false;
    const second = (await scrape(running.port)).families;
    expect(sampleValue(second, "naijalink_agent_interface_up")).toBe(0);
    expect(sampleValue(second, "naijalink_agent_peers")).toBe(7);
  });

  it("listens on loopback only and answers nothing but GET /metrics", async () => {
    running = await serveAgentMetrics(createAgentMetrics(), { port: 0 });
    expect((await fetch(`http://127.0.0.1:${running.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${running.port}/metrics`, { method: "POST" })).status).toBe(404);
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address && address.family === "IPv4" && !address.internal);
    if (external) {
      await expect(fetch(`http://${external.address}:${running.port}/metrics`)).rejects.toThrow();
    }
  });
});
