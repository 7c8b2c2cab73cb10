import { ControlPlane, ControlPlaneError, type PeerSet, type PeerStatus } from "./control-plane.ts";
import { applyDiffToModel, diffPeers, isEmptyDiff, type ActualPeer } from "./peers.ts";
import { applyDiff, configureInterface, ensureNodeKey, readInterface, type WgCommand } from "./wg.ts";

export interface AgentOptions {
  apiUrl: string;
  nodeToken: string;
  iface: string;
  privateKeyFile: string;
  wg?: WgCommand;
  /** How often to ask for the desired peers (an unchanged set is one 304). */
  pollMs?: number;
  /** How often to compare the interface with `wg show dump` and repair drift. */
  reconcileMs?: number;
  /** How often to report handshakes. */
  statusMs?: number;
  log?: AgentLog;
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

/**
 * The node agent: registers the node's public key, pulls the desired peer set, applies only
 * the difference with `wg set`, reconciles against `wg show dump`, reports handshakes. When the
 * control plane is down the interface keeps the last applied set and the agent retries with
 * backoff.
 */
export function startAgent(options: AgentOptions): RunningAgent {
  const wg = options.wg ?? { argv: ["wg"] };
  const log = options.log ?? jsonLog;
  const pollMs = options.pollMs ?? 2_000;
  const reconcileMs = options.reconcileMs ?? 60_000;
  const statusMs = options.statusMs ?? 30_000;
  const controlPlane = new ControlPlane(options.apiUrl, options.nodeToken);

  let stopped = false;
  let publicKey = "";
  let desired: PeerSet | null = null;
  let appliedVersion: string | null = null;
  /** What the interface holds, as far as the agent knows (refreshed from the dump on reconcile). */
  let model = new Map<string, ActualPeer>();
  let listenPortSet = 0;
  const reportedHandshakes = new Map<string, number>();
  let failures = 0;
  let wakeUp: (() => void) | undefined;
  let lastReconcile = 0;
  let lastStatus = 0;
  let registered = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function reconcile(reason: "start" | "timer") {
    const state = await readInterface(wg, options.iface);
    const changed = await configureInterface(wg, options.iface, {
      privateKeyFile: options.privateKeyFile,
      publicKey,
      listenPort: desired?.server.listenPort,
      current: state,
    });
    if (changed) log("info", "interface key and listen port set", { iface: options.iface });
    if (desired) listenPortSet = desired.server.listenPort;
    model = state.peers;
    if (!desired) return;
    const diff = diffPeers(desired.peers, model);
    if (isEmptyDiff(diff)) return;
    await applyDiff(wg, options.iface, diff);
    applyDiffToModel(model, diff);
    log(
      reason === "start" ? "info" : "warn",
      reason === "start" ? "initial sync applied" : "drift repaired",
      {
        added: diff.upserts.length,
        removed: diff.removals.length,
      },
    );
  }

  async function pull() {
    const result = await controlPlane.fetchPeers(appliedVersion);
    if (result === "unchanged") return;
    desired = result;
    if (desired.server.listenPort !== listenPortSet) {
      await reconcile("start");
    } else {
      const diff = diffPeers(desired.peers, model);
      if (!isEmptyDiff(diff)) {
        await applyDiff(wg, options.iface, diff);
        applyDiffToModel(model, diff);
        log("info", "peer changes applied", { added: diff.upserts.length, removed: diff.removals.length });
      }
    }
    appliedVersion = desired.version;
  }

  async function report() {
    const state = await readInterface(wg, options.iface);
    const peers: PeerStatus[] = [];
    for (const peer of state.peers.values()) {
      if (peer.latestHandshake > 0 && reportedHandshakes.get(peer.publicKey) !== peer.latestHandshake) {
        peers.push({
          publicKey: peer.publicKey,
          latestHandshake: peer.latestHandshake,
          rxBytes: peer.rxBytes,
          txBytes: peer.txBytes,
        });
      }
    }
    await controlPlane.postStatus({ publicKey, appliedVersion, peers });
    for (const peer of peers) reportedHandshakes.set(peer.publicKey, peer.latestHandshake);
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
      await reconcile("start");
      lastReconcile = Date.now();
    } catch (error) {
      log("error", "cannot start", { reason: (error as Error).message });
      rejectReady(error as Error);
      return;
    }
    log("info", "agent started", { iface: options.iface, api: new URL(options.apiUrl).origin });
    while (!stopped) {
      try {
        const now = Date.now();
        if (!registered || now - lastStatus >= statusMs) {
          await report();
          lastStatus = Date.now();
          if (!registered) log("info", "node registered with the control plane", { iface: options.iface });
          registered = true;
        }
        await pull();
        if (Date.now() - lastReconcile >= reconcileMs) {
          await reconcile("timer");
          lastReconcile = Date.now();
        }
        if (failures > 0) log("info", "control plane reachable again", { after: failures });
        failures = 0;
        resolveReady();
      } catch (error) {
        failures += 1;
        const reason = (error as Error).message;
        if (error instanceof ControlPlaneError && error.status === 401) {
          log("error", "the control plane refused the node token", { reason });
        } else if (failures === 1 || failures % 10 === 0) {
          log("warn", "sync failed; keeping the last applied peers and retrying", { reason, failures });
        }
      }
      if (stopped) break;
      await sleep(failures === 0 ? pollMs : Math.min(pollMs * 2 ** Math.min(failures, 5), MAX_BACKOFF_MS));
    }
  })();

  return {
    ready,
    async stop() {
      stopped = true;
      wakeUp?.();
      await loop;
    },
  };
}
