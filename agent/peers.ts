// The desired peer set, the interface's actual peers and the difference between them. Pure
// functions: a change from the control plane is compared with the agent's model of the
// interface peer by peer (no pass over every peer); a full set and the reconcile timer's fresh
// `wg show <iface> dump` are compared whole.
import type { DesiredPeer } from "./node-api.ts";

export type { DesiredPeer };

export interface ActualPeer {
  publicKey: string;
  /** null when the peer has none ("(none)" in the dump). */
  presharedKey: string | null;
  allowedIps: string[];
  /** Unix seconds; 0 = never. */
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
}

export interface InterfaceState {
  publicKey: string | null;
  listenPort: number;
  peers: Map<string, ActualPeer>;
}

export interface PeerDiff {
  /** Peers to add or whose preshared key or allowed IPs changed. */
  upserts: DesiredPeer[];
  /** Public keys of peers to remove. */
  removals: string[];
}

function sameAllowedIps(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  // Fast path: the same order (the usual case) needs no sorting; this runs for every peer.
  let inOrder = true;
  for (let index = 0; index < a.length; index += 1) {
    if (a[index] !== b[index]) {
      inOrder = false;
      break;
    }
  }
  if (inOrder) return true;
  const sortedA = a.map(normalizeCidr).sort();
  const sortedB = b.map(normalizeCidr).sort();
  return sortedA.every((value, index) => value === sortedB[index]);
}

/** `wg` prints IPv6 in its canonical lower-case form; compare the same way. */
function normalizeCidr(cidr: string): string {
  return cidr.trim().toLowerCase();
}

function differs(peer: DesiredPeer, current: ActualPeer | undefined): boolean {
  return (
    !current ||
    current.presharedKey !== peer.presharedKey ||
    !sameAllowedIps(current.allowedIps, peer.allowedIps)
  );
}

/** The whole desired set against the interface: O(peers), for a full set and for reconciling. */
export function diffPeers(
  desired: ReadonlyMap<string, DesiredPeer>,
  actual: ReadonlyMap<string, ActualPeer>,
): PeerDiff {
  const upserts: DesiredPeer[] = [];
  let present = 0;
  for (const peer of desired.values()) {
    const current = actual.get(peer.publicKey);
    if (current) present += 1;
    if (differs(peer, current)) upserts.push(peer);
  }
  // Every peer on the interface is wanted when all of them were matched: skip the set.
  if (present === actual.size) return { upserts, removals: [] };
  const removals: string[] = [];
  for (const publicKey of actual.keys()) if (!desired.has(publicKey)) removals.push(publicKey);
  return { upserts, removals };
}

/** A change from the control plane against the interface: O(changed peers). */
export function diffChanges(
  changes: { upserts: readonly DesiredPeer[]; removals: readonly string[] },
  actual: ReadonlyMap<string, ActualPeer>,
): PeerDiff {
  const upserted = new Set(changes.upserts.map((peer) => peer.publicKey));
  return {
    upserts: changes.upserts.filter((peer) => differs(peer, actual.get(peer.publicKey))),
    removals: changes.removals.filter((key) => actual.has(key) && !upserted.has(key)),
  };
}

/** The desired set after a change: removals first, so a key both removed and upserted stays. */
export function applyChangesToDesired(
  desired: Map<string, DesiredPeer>,
  changes: { upserts: readonly DesiredPeer[]; removals: readonly string[] },
): void {
  for (const publicKey of changes.removals) desired.delete(publicKey);
  for (const peer of changes.upserts) desired.set(peer.publicKey, peer);
}

export function desiredMap(peers: readonly DesiredPeer[]): Map<string, DesiredPeer> {
  return new Map(peers.map((peer) => [peer.publicKey, peer]));
}

export function isEmptyDiff(diff: PeerDiff): boolean {
  return diff.upserts.length === 0 && diff.removals.length === 0;
}

/** What the interface holds after a diff was applied successfully (the agent's model). */
export function applyDiffToModel(model: Map<string, ActualPeer>, diff: PeerDiff): void {
  for (const publicKey of diff.removals) model.delete(publicKey);
  for (const peer of diff.upserts) {
    const previous = model.get(peer.publicKey);
    model.set(peer.publicKey, {
      publicKey: peer.publicKey,
      presharedKey: peer.presharedKey,
      allowedIps: [...peer.allowedIps],
      latestHandshake: previous?.latestHandshake ?? 0,
      rxBytes: previous?.rxBytes ?? 0,
      txBytes: previous?.txBytes ?? 0,
    });
  }
}

/**
 * Parses `wg show <iface> dump`: a tab-separated interface line (private key, public key,
 * listen port, fwmark) then one line per peer (public key, preshared key, endpoint, allowed
 * ips, latest handshake, rx, tx, keepalive). The interface's private key is dropped here.
 */
export function parseDump(text: string): InterfaceState {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const [head, ...peerLines] = lines;
  if (!head) throw new Error("wg show dump printed nothing");
  const headFields = head.split("\t");
  if (headFields.length < 4) throw new Error("wg show dump: unexpected interface line");
  const peers = new Map<string, ActualPeer>();
  for (const line of peerLines) {
    const fields = line.split("\t");
    if (fields.length < 8) throw new Error("wg show dump: unexpected peer line");
    const [publicKey, presharedKey, , allowedIps, handshake, rx, tx] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    peers.set(publicKey, {
      publicKey,
      presharedKey: presharedKey === "(none)" ? null : presharedKey,
      allowedIps: allowedIps === "(none)" ? [] : allowedIps.split(","),
      latestHandshake: Number(handshake) || 0,
      rxBytes: Number(rx) || 0,
      txBytes: Number(tx) || 0,
    });
  }
  const publicKey = headFields[1]!;
  return {
    publicKey: publicKey === "(none)" ? null : publicKey,
    listenPort: Number(headFields[2]) || 0,
    peers,
  };
}
