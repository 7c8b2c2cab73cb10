// What the agent reports about its peers: only those whose handshake or transfer counters
// changed since the last report the control plane took, so a report stays as small as the
// activity since the previous one.
import type { PeerStatus } from "./control-plane.ts";
import type { ActualPeer } from "./peers.ts";

type Reported = Pick<ActualPeer, "latestHandshake" | "rxBytes" | "txBytes">;

/** The last report the control plane took, peer by peer. */
export type ReportedPeers = Map<string, Reported>;

/** The peers to report: each that has had a handshake and changed since it was last reported. */
export function changedPeerStatuses(
  peers: Iterable<ActualPeer>,
  reported: ReadonlyMap<string, Reported>,
): PeerStatus[] {
  const changed: PeerStatus[] = [];
  for (const { publicKey, latestHandshake, rxBytes, txBytes } of peers) {
    if (latestHandshake === 0) continue;
    const last = reported.get(publicKey);
    if (last?.latestHandshake === latestHandshake && last.rxBytes === rxBytes && last.txBytes === txBytes)
      continue;
    changed.push({ publicKey, latestHandshake, rxBytes, txBytes });
  }
  return changed;
}

/** Remembers what the control plane took, and forgets peers that left the interface. */
export function markReported(
  reported: ReportedPeers,
  sent: readonly PeerStatus[],
  onInterface: ReadonlyMap<string, unknown>,
): void {
  for (const { publicKey, latestHandshake, rxBytes = 0, txBytes = 0 } of sent)
    reported.set(publicKey, { latestHandshake, rxBytes, txBytes });
  for (const publicKey of reported.keys()) if (!onInterface.has(publicKey)) reported.delete(publicKey);
}
