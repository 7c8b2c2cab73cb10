import { createPeerApplier, type PeerApplier } from "./applier.ts";
import { ControlPlane, ControlPlaneError } from "./control-plane.ts";
import { dnsCheckZoneOf, type DnsCheckAnswerer } from "./dns-check.ts";
import type { AgentMetrics } from "./metrics.ts";
import { MAX_WAIT_SECONDS } from "./node-api.ts";
import { createSettingsApplier, type SettingsHost } from "./node-settings.ts";
import { createStreamingChecker, STREAMING_CHECK_LIMITS } from "./streaming-checks.ts";
import { changedPeerStatuses, markReported, type ReportedPeers } from "./peer-status.ts";
import { ensureNodeKey, readInterface, type WgCommand } from "./wg.ts";

export interface AgentOptions {
  apiUrl: string;
  nodeToken: string;
  iface: string;
  privateKeyFile: string;
  wg?: WgCommand;
  /**
   * The least time between two polls the control plane answered at once with "unchanged"
   * (it holds a poll for up to `waitSeconds` otherwise), and the first retry delay after a failure.
   */
  pollMs?: number;
  /** How long the control plane may hold a poll until a change arrives (0 = plain polling). */
  waitSeconds?: number;
  /** How often to compare the interface with `wg show dump` and repair drift. */
  reconcileMs?: number;
  /** How often to report handshakes and transfer counters. */
  statusMs?: number;
  /** The node's public exit addresses, reported with every status so /check knows them. */
  exitAddresses?: string[];
  log?: AgentLog;
  /** Counts applies, failures and syncs for the local metrics port (agent/metrics.ts). */
  metrics?: AgentMetrics;
  /** Answers the /check zone for the node's resolver; its nonces go with the next report, sent soon. */
  dnsCheck?: DnsCheckAnswerer;
  /**
   * Applies the server's node settings (MTU, port redirects, resolver) as they change, with the
   * setup record at `recordFile` (decision 129); without, the agent leaves them to setup.
   */
  nodeSettings?: { recordFile: string; host?: SettingsHost };
  /** How often every streaming service staff listed is fetched from this node (decision 133). */
  streamingCheckMs?: number;
}

/** Structured log lines; callers pass counts and versions, never keys or tokens. */
export type AgentLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export const jsonLog: AgentLog = (level, message, fields = {}) => {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields });
  if (level === "info") process.stdout.write(`${line}\n`);
  else process.stderr.write(`${line}\n`);
};

export interface RunningAgent {
  /** Resolves after the first successful registration and sync (or rejects on a fatal error). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;
const DNS_CHECK_REPORT_DELAY_MS = 200;

/**
 * The node agent: registers the node's public key, takes the full peer set once and then each
 * change as the control plane announces it (a held poll answered at once), applies only the
 * difference with one `wg set` call (applier.ts), reconciles against `wg show dump` on a timer,
 * reports handshakes and transfer counters. When the control plane is down the interface keeps the last applied set and the
 * agent retries with backoff.
 */
export function startAgent(options: AgentOptions): RunningAgent {
  const wg = options.wg ?? { argv: ["wg"] };
  const log = options.log ?? jsonLog;
  const pollMs = options.pollMs ?? 1_000;
  const waitSeconds = Math.min(options.waitSeconds ?? MAX_WAIT_SECONDS, MAX_WAIT_SECONDS);
  const controlPlane = new ControlPlane(options.apiUrl, options.nodeToken);
  const aborter = new AbortController();

  let stopped = false;
  let publicKey = "";
  let applier: PeerApplier | undefined;
  const reportedPeers: ReportedPeers = new Map();
  let failures = 0;
  let registered = false;

  async function sendReport() {
    const state = await readInterface(wg, options.iface);
    const peers = changedPeerStatuses(state.peers.values(), reportedPeers);
    const { exitAddresses, dnsCheck } = options;
    const dnsChecks = dnsCheck?.take() ?? [];
    const settingsReport = settings?.report;
    const streamingChecks = streaming.take();
    try {
      const answer = await controlPlane.postStatus({
        publicKey,
        appliedVersion: applier?.version ?? null,
        appliedPeers: state.peers.size,
        ...(exitAddresses ? { exitAddresses } : {}),
        ...(settingsReport ? { settings: settingsReport } : {}),
        ...(dnsChecks.length ? { dnsChecks } : {}),
        ...(streamingChecks.length ? { streamingChecks } : {}),
        peers,
      });
      // A changed list is checked at once, beside everything else; its results go with a later report.
      streaming.configure(answer.streamingChecks ?? []);
    } catch (error) {
      dnsCheck?.putBack(dnsChecks);
      streaming.putBack(streamingChecks);
      throw error;
    }
    markReported(reportedPeers, peers, state.peers);
  }

  // One report at a time: the timer's and the one a /check nonce asks for share `reportedPeers`.
  let reporting: Promise<void> = Promise.resolve();
  const report = () => {
    const next = reporting.then(sendReport);
    reporting = next.catch(() => undefined);
    return next;
  };
  let reportSoon: ReturnType<typeof setTimeout> | undefined;
  /** Reports within a moment, gathering what else arrives. */
  const soon = () => {
    if (reportSoon || !registered) return;
    reportSoon = setTimeout(() => {
      reportSoon = undefined;
      if (!stopped)
        report().catch((error: unknown) =>
          log("warn", "status report failed", { reason: (error as Error).message }),
        );
    }, DNS_CHECK_REPORT_DELAY_MS);
  };
  // A visitor's /check page is waiting.
  options.dnsCheck?.onNonce(soon);
  const streaming = createStreamingChecker({
    signal: aborter.signal,
    onResults: soon,
    log: (message, fields) => log("warn", message, fields),
  });
  const settings = options.nodeSettings
    ? createSettingsApplier({
        iface: options.iface,
        recordFile: options.nodeSettings.recordFile,
        host: options.nodeSettings.host,
        log,
        // The operator's `list-servers` shows the applied version as soon as it is.
        onApplied: soon,
      })
    : undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        aborter.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      aborter.signal.addEventListener("abort", done, { once: true });
    });

  function syncFailed(error: unknown) {
    options.metrics?.syncFailed();
    const reason = (error as Error).message;
    if (error instanceof ControlPlaneError && error.status === 401) {
      log("error", "the control plane refused the node token", { reason });
    } else if (failures === 1 || failures % 10 === 0) {
      log("warn", "sync failed; keeping the last applied peers and retrying", { reason, failures });
    }
  }

  /** Runs `work` every `everyMs` after the agent is ready, never two at once. */
  function every(everyMs: number, what: string, work: () => Promise<void>) {
    return (async () => {
      // Stopped before the first sync: ready never settles, so the stop must not wait on it.
      const stoppedFirst = new Promise<false>((resolve) =>
        aborter.signal.addEventListener("abort", () => resolve(false), { once: true }),
      );
      const started = ready.then(
        () => true,
        () => false,
      );
      if (!(await Promise.race([started, stoppedFirst]))) return;
      while (!stopped) {
        await sleep(everyMs);
        if (stopped) break;
        await work().catch((error: unknown) => {
          if (!stopped) log("warn", `${what} failed`, { reason: (error as Error).message });
        });
      }
    })();
  }

  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);

  const loop = (async () => {
    try {
      publicKey = await ensureNodeKey(wg, options.privateKeyFile);
      const { iface, privateKeyFile } = options;
      const created = createPeerApplier({ wg, iface, privateKeyFile, publicKey, log });
      applier = options.metrics
        ? options.metrics.watch(created, async () => (await readInterface(wg, iface)).peers.size)
        : created;
      await applier.reconcile("start");
    } catch (error) {
      log("error", "cannot start", { reason: (error as Error).message });
      rejectReady(error as Error);
      return;
    }
    log("info", "agent started", { iface: options.iface, api: new URL(options.apiUrl).origin });
    while (!stopped) {
      const started = Date.now();
      let quietFor = 0;
      try {
        if (!registered) {
          await report();
          log("info", "node registered with the control plane", { iface: options.iface });
          registered = true;
        }
        const answer = await controlPlane.fetchPeers(applier!.version, {
          waitSeconds,
          signal: aborter.signal,
        });
        if (answer === "unchanged") quietFor = Math.max(0, pollMs - (Date.now() - started));
        else {
          await applier!.take(answer);
          options.dnsCheck?.configure(dnsCheckZoneOf(answer.server));
          // Not awaited: the peers keep flowing while unbound restarts.
          settings?.take(answer.server).catch((error: unknown) => {
            log("error", "node settings not applied", { reason: (error as Error).message });
          });
        }
        if (failures > 0) log("info", "control plane reachable again", { after: failures });
        failures = 0;
        options.metrics?.synced();
        resolveReady();
      } catch (error) {
        if (stopped) break;
        failures += 1;
        syncFailed(error);
      }
      if (stopped) break;
      const backoff = Math.min(pollMs * 2 ** Math.min(failures, 5), MAX_BACKOFF_MS);
      const delay = failures > 0 ? backoff : quietFor;
      if (delay > 0) await sleep(delay);
    }
  })();

  const timers = [
    every(options.statusMs ?? 30_000, "status report", report),
    every(options.reconcileMs ?? 60_000, "reconcile", async () => {
      await applier!.reconcile("timer");
      await settings?.retry();
    }),
    every(options.streamingCheckMs ?? STREAMING_CHECK_LIMITS.intervalMs, "streaming checks", () =>
      streaming.runRound(),
    ),
  ];

  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(reportSoon);
      aborter.abort();
      await Promise.all([loop, ...timers, settings?.settled(), streaming.settled()]);
    },
  };
}
