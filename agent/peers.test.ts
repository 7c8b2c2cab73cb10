import { describe, expect, it } from "vitest";
import {
  applyChangesToDesired,
  applyDiffToModel,
  desiredMap,
  diffChanges,
  diffPeers as diffPeerMap,
  isEmptyDiff,
  parseDump,
  type ActualPeer,
  type DesiredPeer,
} from "./peers.ts";

const key = (n: number) => `${String(n).padStart(42, "A")}A=`;
const desired = (n: number, psk = key(1000 + n)): DesiredPeer => ({
  publicKey: key(n),
  presharedKey: psk,
  allowedIps: [`10.66.0.${n}/32`, `fd66::${n.toString(16)}/128`],
});
const actual = (peer: DesiredPeer, overrides: Partial<ActualPeer> = {}): ActualPeer => ({
  publicKey: peer.publicKey,
  presharedKey: peer.presharedKey,
  allowedIps: [...peer.allowedIps],
  latestHandshake: 0,
  rxBytes: 0,
  txBytes: 0,
  ...overrides,
});
const modelOf = (peers: ActualPeer[]) => new Map(peers.map((peer) => [peer.publicKey, peer]));
const diffPeers = (peers: DesiredPeer[], model: Map<string, ActualPeer>) =>
  diffPeerMap(desiredMap(peers), model);

describe("the agent's peer diff", () => {
  it("changes nothing when the interface already holds the desired peers (allowed IPs in any order)", () => {
    const peers = [desired(2), desired(3)];
    const model = modelOf([
      actual(peers[0]!),
      actual(peers[1]!, { allowedIps: [...peers[1]!.allowedIps].reverse(), latestHandshake: 1700000000 }),
    ]);
    expect(isEmptyDiff(diffPeers(peers, model))).toBe(true);
  });

  it("adds missing peers and removes peers that are no longer wanted, touching no others", () => {
    const model = modelOf([actual(desired(2)), actual(desired(3)), actual(desired(4))]);
    const diff = diffPeers([desired(2), desired(4), desired(5)], model);
    expect(diff.upserts.map((peer) => peer.publicKey)).toEqual([key(5)]);
    expect(diff.removals).toEqual([key(3)]);
  });

  it("re-applies a peer whose preshared key or allowed IPs differ (regenerated keys, drift)", () => {
    const model = modelOf([
      actual(desired(2), { presharedKey: null }),
      actual(desired(3), { allowedIps: ["10.66.0.3/32"] }),
      actual(desired(4)),
    ]);
    const diff = diffPeers([desired(2), desired(3), desired(4)], model);
    expect(diff.upserts.map((peer) => peer.publicKey)).toEqual([key(2), key(3)]);
    expect(diff.removals).toEqual([]);
  });

  it("removes every unknown peer found on the interface", () => {
    const diff = diffPeers([], modelOf([actual(desired(7))]));
    expect(diff).toEqual({ upserts: [], removals: [key(7)] });
  });

  it("updates its model so the next diff of the same set is empty", () => {
    const model = modelOf([actual(desired(3))]);
    const wanted = [desired(2), desired(4)];
    applyDiffToModel(model, diffPeers(wanted, model));
    expect(isEmptyDiff(diffPeers(wanted, model))).toBe(true);
    expect([...model.keys()].sort()).toEqual([key(2), key(4)]);
  });

  it("finds one change among 10,000 peers", () => {
    const peers = Array.from({ length: 10_000 }, (_, index) => desired(index + 2));
    const model = modelOf(peers.map((peer) => actual(peer)));
    const changed = [...peers.slice(1), desired(20_000)];
    const diff = diffPeers(changed, model);
    expect(diff.upserts).toHaveLength(1);
    expect(diff.removals).toEqual([peers[0]!.publicKey]);
  });
});

describe("a change from the control plane", () => {
  const tenThousand = Array.from({ length: 10_000 }, (_, index) => desired(index + 2));

  it("yields only the changed peers, leaving every other peer (even a drifted one) to the reconcile", () => {
    const model = modelOf(
      tenThousand.map((peer, index) => actual(peer, index % 100 === 0 ? { presharedKey: null } : {})),
    );
    const removed = tenThousand[5]!.publicKey;
    const diff = diffChanges({ upserts: [desired(20_000)], removals: [removed] }, model);
    expect(diff).toEqual({ upserts: [desired(20_000)], removals: [removed] });
    expect(diffPeerMap(desiredMap(tenThousand), model).upserts).toHaveLength(100);
  });

  it("skips an upsert the interface already holds and a removal of a peer it does not hold", () => {
    const model = modelOf([actual(desired(2)), actual(desired(3))]);
    const diff = diffChanges({ upserts: [desired(2)], removals: [key(99)] }, model);
    expect(isEmptyDiff(diff)).toBe(true);
  });

  it("re-applies a peer whose preshared key changed (a re-keyed device)", () => {
    const model = modelOf([actual(desired(2))]);
    const rekeyed = desired(2, key(5000));
    expect(diffChanges({ upserts: [rekeyed], removals: [] }, model).upserts).toEqual([rekeyed]);
  });

  it("keeps the desired set in step, so the reconcile timer repairs toward the latest change", () => {
    const wanted = desiredMap([desired(2), desired(3)]);
    applyChangesToDesired(wanted, { upserts: [desired(4)], removals: [key(2)] });
    expect([...wanted.keys()].sort()).toEqual([key(3), key(4)].sort());
    const model = modelOf([actual(desired(2)), actual(desired(3))]);
    const repair = diffPeerMap(wanted, model);
    expect(repair.upserts.map((peer) => peer.publicKey)).toEqual([key(4)]);
    expect(repair.removals).toEqual([key(2)]);
  });
});

describe("reading `wg show <iface> dump`", () => {
  it("reads the interface and its peers and keeps no private key", () => {
    const privateKey = "SECRETprivateKEYsecretPRIVATEkeySECRETpriv=";
    const text = [
      [privateKey, key(1), "51820", "off"].join("\t"),
      [
        key(2),
        key(99),
        "192.0.2.2:40000",
        "10.66.0.2/32,fd66::2/128",
        "1700000000",
        "1200",
        "3400",
        "off",
      ].join("\t"),
      [key(3), "(none)", "(none)", "(none)", "0", "0", "0", "25"].join("\t"),
      "",
    ].join("\n");
    const state = parseDump(text);
    expect(state.publicKey).toBe(key(1));
    expect(state.listenPort).toBe(51820);
    expect(state.peers.get(key(2))).toEqual({
      publicKey: key(2),
      presharedKey: key(99),
      allowedIps: ["10.66.0.2/32", "fd66::2/128"],
      latestHandshake: 1700000000,
      rxBytes: 1200,
      txBytes: 3400,
    });
    expect(state.peers.get(key(3))).toMatchObject({ presharedKey: null, allowedIps: [] });
    expect(JSON.stringify({ ...state, peers: [...state.peers.values()] })).not.toContain(privateKey);
  });
});
