import type { AgentLog } from "./agent.ts";
import type { CheckedAnswer, NodeServer } from "./node-api.ts";
import {
  applyChangesToDesired,
  applyDiffToModel,
  desiredMap,
  diffChanges,
  diffPeers,
  isEmptyDiff,
  type ActualPeer,
  type DesiredPeer,
  type PeerDiff,
} from "./peers.ts";
import { applyDiff, configureInterface, readInterface, type WgCommand } from "./wg.ts";

export interface PeerApplier {
  /** The version of the control plane's peer set applied last; null until the first full set. */
  readonly version: string | null;
  /** Applies a checked answer: a full set is compared whole, a change peer by peer. */
  take(answer: CheckedAnswer): Promise<void>;
  /** Re-reads the interface (`wg show dump`) and repairs any difference from the desired set. */
  reconcile(reason: "start" | "timer"): Promise<void>;
}

/**
 * The agent's hold on the WireGuard interface: the desired set (as the control plane last said),
 * a model of what the interface holds, and the applied version. Changes and reconciles both
 * write the interface and the model, so they run one at a time.
 */
export function createPeerApplier(options: {
  wg: WgCommand;
  iface: string;
  privateKeyFile: string;
  /** The public key of `privateKeyFile`: the interface is given the file when its key differs. */
  publicKey: string;
  log: AgentLog;
}): PeerApplier {
  const { wg, iface, log } = options;
  let server: NodeServer | null = null;
  let version: string | null = null;
  let desired = new Map<string, DesiredPeer>();
  let model = new Map<string, ActualPeer>();
  let listenPortSet = 0;

  let interfaceWork: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = interfaceWork.then(work, work);
    interfaceWork = next.catch(() => undefined);
    return next;
  };

  async function apply(diff: PeerDiff) {
    await applyDiff(wg, iface, diff);
    applyDiffToModel(model, diff);
  }

  /** Reads the dump, sets the key and listen port if they differ; the dump becomes the model. */
  async function refreshInterface() {
    const state = await readInterface(wg, iface);
    const changed = await configureInterface(wg, iface, {
      privateKeyFile: options.privateKeyFile,
      publicKey: options.publicKey,
      listenPort: server?.listenPort,
      current: state,
    });
    if (changed) log("info", "interface key and listen port set", { iface });
    if (server) listenPortSet = server.listenPort;
    model = state.peers;
  }

  return {
    get version() {
      return version;
    },

    reconcile: (reason) =>
      exclusive(async () => {
        await refreshInterface();
        if (version === null) return;
        const diff = diffPeers(desired, model);
        if (isEmptyDiff(diff)) return;
        await apply(diff);
        const message = reason === "start" ? "peers re-applied" : "drift repaired";
        log(reason === "start" ? "info" : "warn", message, {
          added: diff.upserts.length,
          removed: diff.removals.length,
        });
      }),

    take: (answer) =>
      exclusive(async () => {
        if (answer.refused > 0)
          log("warn", "refused peers that do not fit the node API contract", { refused: answer.refused });
        if (answer.kind === "changes" && answer.since !== version) {
          version = null; // not a change of what this agent holds: ask for the full set
          return;
        }
        server = answer.server;
        if (server.listenPort !== listenPortSet) await refreshInterface();
        const next = answer.kind === "full" ? desiredMap(answer.peers) : desired;
        const diff = answer.kind === "full" ? diffPeers(next, model) : diffChanges(answer, model);
        await apply(diff);
        if (answer.kind === "changes") applyChangesToDesired(desired, answer);
        desired = next;
        version = answer.version;
        log("info", answer.kind === "full" ? "full peer set applied" : "peer changes applied", {
          version: answer.version,
          added: diff.upserts.length,
          removed: diff.removals.length,
        });
      }),
  };
}
