// The agent's own Prometheus metrics (decision 083), on a local port only (127.0.0.1:9586 by
// default): what the node carries and how applying it goes. No keys, addresses or tokens: the
// figures are counts, durations and the peer-set version.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PeerApplier } from "./applier.ts";

export const DEFAULT_METRICS_PORT = 9586;

type ApplyKind = "full" | "changes" | "reconcile";

export interface AgentMetrics {
  readonly registry: Registry;
  /**
   * The applier, measured: every apply and reconcile is timed and a failed one counted.
   * `countPeers` reads the interface (`wg show dump`) when Prometheus scrapes.
   */
  watch(applier: PeerApplier, countPeers: () => Promise<number>): PeerApplier;
  /** A poll of the control plane failed, or succeeded. */
  syncFailed(): void;
  synced(now?: Date): void;
}

export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  let countPeers: (() => Promise<number>) | undefined;
  let appliedVersion: () => string | null = () => null;

  // One `wg show dump` per scrape, shared by the two gauges below: prom-client asks every metric
  // at once, so the second must not read its value before the first has read the interface.
  let reading: Promise<number | undefined> | undefined;
  const readPeers = () =>
    (reading ??= (async () => {
      try {
        return countPeers ? await countPeers() : undefined;
      } catch {
        return undefined; // wg missing or the interface gone
      } finally {
        reading = undefined;
      }
    })());
  new Gauge({
    name: "naijalink_agent_peers",
    help: "Peers on the WireGuard interface at the last scrape that could read it",
    registers,
    async collect() {
      const peers = await readPeers();
      if (peers !== undefined) this.set(peers);
    },
  });
  new Gauge({
    name: "naijalink_agent_interface_up",
    help: "1 when this scrape could read the WireGuard interface (wg show dump), else 0",
    registers,
    async collect() {
      this.set((await readPeers()) === undefined ? 0 : 1);
    },
  });
  new Gauge({
    name: "naijalink_agent_applied_peer_version",
    help: "The control plane's peer-set version applied last (0 before the first full set)",
    registers,
    collect() {
      const version = Number(appliedVersion() ?? 0);
      this.set(Number.isFinite(version) ? version : 0);
    },
  });
  const duration = new Histogram({
    name: "naijalink_agent_apply_duration_seconds",
    help: "Time to apply peers to the interface: a full set, a change, or a reconcile against wg show dump",
    labelNames: ["kind"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const failures = new Counter({
    name: "naijalink_agent_apply_failures_total",
    help: "Applies and reconciles that failed (wg refused or could not run)",
    labelNames: ["kind"] as const,
    registers,
  });
  const syncFailures = new Counter({
    name: "naijalink_agent_sync_failures_total",
    help: "Polls of the control plane that failed (unreachable, refused or malformed answer)",
    registers,
  });
  const lastSync = new Gauge({
    name: "naijalink_agent_last_sync_timestamp_seconds",
    help: "When a poll of the control plane last succeeded (Unix time)",
    registers,
  });
  for (const kind of ["full", "changes", "reconcile"] as const) failures.inc({ kind }, 0);

  const timed = async (kind: ApplyKind, work: () => Promise<void>) => {
    const end = duration.startTimer({ kind });
    try {
      await work();
    } catch (error) {
      failures.inc({ kind });
      throw error;
    } finally {
      end();
    }
  };

  return {
    registry,
    watch(applier, peers) {
      countPeers = peers;
      appliedVersion = () => applier.version;
      return {
        get version() {
          return applier.version;
        },
        take: (answer) => timed(answer.kind, () => applier.take(answer)),
        reconcile: (reason) => timed("reconcile", () => applier.reconcile(reason)),
      };
    },
    syncFailed: () => syncFailures.inc(),
    synced: (now = new Date()) => lastSync.set(now.getTime() / 1000),
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** GET /metrics on `host:port`; loopback unless told, as nothing here is authenticated. */
export function serveAgentMetrics(
  metrics: AgentMetrics,
  { port, host = "127.0.0.1" }: { port: number; host?: string },
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("Not found: GET /metrics\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { "Content-Type": metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { "Content-Type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
