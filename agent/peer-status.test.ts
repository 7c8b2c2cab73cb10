import { describe, expect, it } from "vitest";
import { changedPeerStatuses, markReported, type ReportedPeers } from "./peer-status.ts";
import type { ActualPeer } from "./peers.ts";

const key = (n: number) => `${String(n).padStart(42, "A")}A=`;
const peer = (n: number, overrides: Partial<ActualPeer> = {}): ActualPeer => ({
  publicKey: key(n),
  presharedKey: null,
  allowedIps: [`10.66.0.${n}/32`, `fd66::${n}/128`],
  latestHandshake: 1_700_000_000,
  rxBytes: 1_000,
  txBytes: 5_000,
  ...overrides,
});
const interfaceOf = (peers: ActualPeer[]) => new Map(peers.map((each) => [each.publicKey, each]));

describe("the peers the agent reports", () => {
  it("reports each peer with a handshake once, with its transfer counters, and never a peer without one", () => {
    const reported: ReportedPeers = new Map();
    const peers = [peer(1), peer(2, { latestHandshake: 0, rxBytes: 0, txBytes: 92 })];
    const first = changedPeerStatuses(peers, reported);
    expect(first).toEqual([
      { publicKey: key(1), latestHandshake: 1_700_000_000, rxBytes: 1_000, txBytes: 5_000 },
    ]);
    markReported(reported, first, interfaceOf(peers));
    expect(changedPeerStatuses(peers, reported)).toEqual([]);
  });

  it("reports a peer whose transfer changed though its handshake did not, and leaves the unchanged ones out", () => {
    const reported: ReportedPeers = new Map();
    const before = [peer(1), peer(2), peer(3)];
    markReported(reported, changedPeerStatuses(before, reported), interfaceOf(before));
    const after = [peer(1, { txBytes: 9_000 }), peer(2), peer(3, { latestHandshake: 1_700_000_120 })];
    expect(changedPeerStatuses(after, reported)).toEqual([
      { publicKey: key(1), latestHandshake: 1_700_000_000, rxBytes: 1_000, txBytes: 9_000 },
      { publicKey: key(3), latestHandshake: 1_700_000_120, rxBytes: 1_000, txBytes: 5_000 },
    ]);
  });

  it("reports counters that went down (an interface restart) and a peer that left and came back", () => {
    const reported: ReportedPeers = new Map();
    const before = [peer(1), peer(2)];
    markReported(reported, changedPeerStatuses(before, reported), interfaceOf(before));
    const withoutTwo = [peer(1, { rxBytes: 10, txBytes: 20 })];
    const changed = changedPeerStatuses(withoutTwo, reported);
    expect(changed.map((each) => each.txBytes)).toEqual([20]);
    markReported(reported, changed, interfaceOf(withoutTwo));
    expect(reported.has(key(2))).toBe(false);
    expect(changedPeerStatuses([peer(2)], reported)).toHaveLength(1);
  });

  it("reports again what a failed report did not deliver", () => {
    const reported: ReportedPeers = new Map();
    const peers = [peer(1)];
    changedPeerStatuses(peers, reported);
    expect(changedPeerStatuses(peers, reported)).toHaveLength(1);
  });
});
