// The agent's metrics end to end (decision 083): the real agent, against the real control plane,
// on a stand-in `wg` that keeps the interface in a file. What its own port says (peers on the
// interface, applies, syncs) and what /metrics then says about the node (applied = desired).
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startAgent, type RunningAgent } from "#agent/agent.ts";
import { createAgentMetrics, serveAgentMetrics, type MetricsServer } from "#agent/metrics.ts";
import { addVpnServer } from "#server/domain/vpn/servers.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { parsePrometheusText, sampleValue } from "../../support/prometheus.ts";
import { addTestSubscription, issueTestDevice } from "../../support/vpn.ts";

const METRICS_TOKEN = "metrics-token-for-the-agent-test-0123456789";
const NODE_PUBLIC_KEY = Buffer.alloc(32, 11).toString("base64");

/** `wg` as the agent uses it (genkey, pubkey, show IFACE dump, set IFACE …), with the interface in a JSON file. */
const FAKE_WG = `
import fs from "node:fs";
const [stateFile, command, ...args] = process.argv.slice(2);
const empty = { publicKey: null, listenPort: 0, peers: {} };
const state = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, "utf8")) : empty;
if (command === "genkey") console.log(Buffer.alloc(32, 9).toString("base64"));
else if (command === "pubkey") console.log(${JSON.stringify(NODE_PUBLIC_KEY)});
else if (command === "show") {
  const lines = ["(hidden)\\t" + (state.publicKey ?? "(none)") + "\\t" + state.listenPort + "\\toff"];
  for (const [key, peer] of Object.entries(state.peers))
    lines.push([key, peer.psk, "(none)", peer.ips || "(none)", 0, 0, 0, "off"].join("\\t"));
  console.log(lines.join("\\n"));
} else if (command === "set") {
  for (let i = 1; i < args.length; i++) {
    if (args[i] === "private-key") { state.publicKey = ${JSON.stringify(NODE_PUBLIC_KEY)}; i++; }
    else if (args[i] === "listen-port") state.listenPort = Number(args[++i]);
    else if (args[i] === "peer") {
      const key = args[++i];
      if (args[i + 1] === "remove") { delete state.peers[key]; i++; continue; }
      const peer = (state.peers[key] ??= { psk: "(none)", ips: "" });
      while (args[i + 1] === "preshared-key" || args[i + 1] === "allowed-ips") {
        const option = args[++i];
        const value = args[++i];
        if (option === "preshared-key") peer.psk = fs.readFileSync(value, "utf8").trim();
        else peer.ips = value;
      }
    }
  }
  fs.writeFileSync(stateFile, JSON.stringify(state));
} else process.exit(1);
`;

describe("the agent's metrics, end to end", () => {
  let app: TestServer;
  let agent: RunningAgent | undefined;
  let metricsServer: MetricsServer | undefined;

  beforeAll(async () => {
    app = await startTestServer({ env: { METRICS_TOKEN }, backgroundJobs: false });
  });
  afterAll(async () => {
    await agent?.stop();
    await metricsServer?.close();
    await app?.stop();
  });

  it("count the peers the agent applied, and /metrics then shows the node applied what it should carry", async () => {
    const { db } = app.services;
    const { nodeToken } = await addVpnServer(db, {
      name: "ng-ibadan-1",
      endpoint: "203.0.113.20:51820",
      publicKey: NODE_PUBLIC_KEY,
      ipv4Cidr: "10.77.0.0/16",
      ipv6Cidr: "fd77::/64",
      dns: "1.1.1.1",
    });
    await issueTestDevice(app.services, await addTestSubscription(db));
    await issueTestDevice(app.services, await addTestSubscription(db));

    const wgFile = path.join(app.dataDir, "fake-wg.mjs");
    await fs.writeFile(wgFile, FAKE_WG);
    const metrics = createAgentMetrics();
    metricsServer = await serveAgentMetrics(metrics, { port: 0 });
    agent = startAgent({
      apiUrl: app.url,
      nodeToken,
      iface: "wg0",
      privateKeyFile: path.join(app.dataDir, "node", "private.key"),
      wg: { argv: [process.execPath, wgFile, path.join(app.dataDir, "wg0.json")] },
      waitSeconds: 1,
      pollMs: 100,
      statusMs: 200,
      log: () => {},
      metrics,
    });
    await agent.ready;

    const scrape = async (url: string, init?: RequestInit) =>
      parsePrometheusText(await (await fetch(url, init)).text());
    const agentUrl = `http://127.0.0.1:${metricsServer.port}/metrics`;
    const own = await vi.waitFor(
      async () => {
        const families = await scrape(agentUrl);
        expect(sampleValue(families, "naijalink_agent_peers")).toBe(2);
        return families;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(sampleValue(own, "naijalink_agent_interface_up")).toBe(1);
    expect(sampleValue(own, "naijalink_agent_apply_duration_seconds_count", { kind: "full" })).toBe(1);
    expect(sampleValue(own, "naijalink_agent_apply_duration_seconds_count", { kind: "reconcile" })).toBe(1);
    expect(sampleValue(own, "naijalink_agent_apply_failures_total", { kind: "full" })).toBe(0);
    expect(sampleValue(own, "naijalink_agent_sync_failures_total")).toBe(0);
    expect(sampleValue(own, "naijalink_agent_last_sync_timestamp_seconds")).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );

    const byServer = { server: "ng-ibadan-1" };
    const plane = await vi.waitFor(
      async () => {
        const families = await scrape(`${app.url}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        expect(sampleValue(families, "naijalink_vpn_server_applied_peer_version", byServer)).toBeDefined();
        return families;
      },
      { timeout: 20_000, interval: 100 },
    );
    const desired = sampleValue(plane, "naijalink_vpn_server_desired_peer_version", byServer);
    expect(sampleValue(plane, "naijalink_vpn_server_applied_peer_version", byServer)).toBe(desired);
    expect(sampleValue(own, "naijalink_agent_applied_peer_version")).toBe(desired);
    expect(sampleValue(plane, "naijalink_vpn_server_desired_peers", byServer)).toBe(2);
  });
});

describe("the agent's stop", () => {
  it("ends at once when stopped before its first sync, however long the control plane holds the poll", async () => {
    // A control plane that takes the status report and never answers the peers poll.
    let pollsHeld = 0;
    const held: http.ServerResponse[] = [];
    const controlPlane = http.createServer((request, response) => {
      if (request.url?.startsWith("/api/nodes/status")) {
        request.resume();
        response.writeHead(204).end();
      } else {
        pollsHeld += 1;
        held.push(response);
      }
    });
    await new Promise<void>((resolve) => controlPlane.listen(0, "127.0.0.1", resolve));
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "naijalink-agent-stop-"));
    try {
      const wgFile = path.join(dataDir, "fake-wg.mjs");
      await fs.writeFile(wgFile, FAKE_WG);
      const stopping = startAgent({
        apiUrl: `http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`,
        nodeToken: "node-token-for-the-stop-test",
        iface: "wg0",
        privateKeyFile: path.join(dataDir, "node", "private.key"),
        wg: { argv: [process.execPath, wgFile, path.join(dataDir, "wg0.json")] },
        waitSeconds: 25,
        log: () => {},
      });
      await vi.waitFor(() => expect(pollsHeld).toBe(1), { timeout: 20_000, interval: 50 });
      // Resolves only if nothing waits on the first sync that never came.
      await stopping.stop();
    } finally {
      for (const response of held) response.destroy();
      await new Promise((resolve) => controlPlane.close(resolve));
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
