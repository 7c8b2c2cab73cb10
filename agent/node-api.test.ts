import { describe, expect, it } from "vitest";
import {
  canonicalIpAddress,
  checkPeerAnswer,
  exitAddressesSchema,
  NodeApiError,
  nodeStatusSchema,
  peersQuerySchema,
} from "./node-api.ts";

const key = (n: number) => `${String(n).padStart(42, "A")}A=`;
const server = {
  name: "ng-lagos-1",
  listenPort: 51820,
  ipv4: "10.66.0.1/16",
  ipv6: "fd66::1/64",
  ipv4Pool: "10.66.0.0/16",
  ipv6Pool: "fd66::/64",
};
const peer = (n: number, allowedIps = [`10.66.0.${n}/32`, `fd66::${n.toString(16)}/128`]) => ({
  publicKey: key(n),
  presharedKey: key(1000 + n),
  allowedIps,
});

describe("the node API contract, as the agent checks an answer", () => {
  it("accepts a full set whose peers have one /32 and one /128 inside the pools, in either order", () => {
    const answer = checkPeerAnswer({
      kind: "full",
      version: "7",
      server,
      peers: [peer(2), peer(3, ["fd66::3/128", "10.66.0.3/32"])],
    });
    expect(answer).toMatchObject({ kind: "full", version: "7", refused: 0 });
    expect(answer.kind === "full" && answer.peers.map((p) => p.publicKey)).toEqual([key(2), key(3)]);
  });

  it("refuses peers that do not fit and applies the rest", () => {
    const misfits = [
      peer(4, ["10.67.0.4/32", "fd66::4/128"]), // IPv4 outside the pool
      peer(5, ["10.66.0.5/32", "fd67::5/128"]), // IPv6 outside the pool
      peer(6, ["10.66.0.0/24", "fd66::6/128"]), // not a single address
      peer(7, ["10.66.0.7/32"]), // no IPv6
      peer(8, ["10.66.0.8/32", "10.66.0.9/32"]), // two IPv4, no IPv6
      peer(9, ["10.66.0.9/32", "fd66::9/128", "0.0.0.0/0"]),
      peer(10, ["::ffff:10.66.0.10/128", "10.66.0.10/32"]), // an IPv4-mapped address is no IPv6 pool address
      { ...peer(11), publicKey: "not-a-key" },
      { ...peer(12), presharedKey: "short" },
      "a string",
    ];
    const answer = checkPeerAnswer({ kind: "full", version: "8", server, peers: [peer(2), ...misfits] });
    expect(answer.refused).toBe(misfits.length);
    expect(answer.kind === "full" && answer.peers).toEqual([peer(2)]);
  });

  it("turns a refused change of a peer into its removal, so the old peer does not stay", () => {
    const answer = checkPeerAnswer({
      kind: "changes",
      since: "3",
      version: "5",
      server,
      upserts: [peer(2), peer(3, ["192.0.2.3/32", "fd66::3/128"])],
      removals: [key(4), "bogus"],
    });
    expect(answer).toMatchObject({ kind: "changes", since: "3", version: "5", refused: 2 });
    expect(answer.kind === "changes" && answer.upserts).toEqual([peer(2)]);
    expect(answer.kind === "changes" && [...answer.removals].sort()).toEqual([key(3), key(4)].sort());
  });

  it("rejects a malformed answer as a whole, naming the field but no value", () => {
    const bad = [
      null,
      { kind: "full", version: "1", peers: [] },
      { kind: "full", version: "1", server: { ...server, ipv4Pool: "nowhere" }, peers: [] },
      { kind: "full", version: "1", server: { ...server, listenPort: 0 }, peers: [] },
      { kind: "changes", version: "2", server, upserts: [], removals: [] },
      { kind: "everything", version: "1", server, peers: [] },
    ];
    for (const body of bad) expect(() => checkPeerAnswer(body)).toThrow(NodeApiError);
    try {
      checkPeerAnswer({ kind: "full", version: "1", server: { ...server, ipv6Pool: key(1) }, peers: [] });
    } catch (error) {
      expect((error as Error).message).toContain("server.ipv6Pool");
      expect((error as Error).message).not.toContain(key(1));
    }
  });
});

describe("the node API contract, as the control plane checks a request", () => {
  it("reads since and wait, capping the wait at 25 s", () => {
    expect(peersQuerySchema.parse({ since: "12", wait: "25" })).toEqual({ since: "12", wait: 25 });
    expect(peersQuerySchema.safeParse({ since: "12", wait: "26" }).success).toBe(false);
    expect(peersQuerySchema.safeParse({ wait: "-1" }).success).toBe(false);
    expect(peersQuerySchema.parse({})).toEqual({});
  });

  it("takes a status report only with a WireGuard public key", () => {
    expect(nodeStatusSchema.safeParse({ publicKey: "nope" }).success).toBe(false);
    expect(nodeStatusSchema.parse({ publicKey: key(1) })).toEqual({ publicKey: key(1), peers: [] });
  });
});

describe("exit addresses, written one way so /check can compare them", () => {
  it("writes IPv6 in its canonical form and an IPv4-mapped address as IPv4", () => {
    expect(canonicalIpAddress("2001:0DB8:0000:0000:0000:0000:0000:000A")).toBe("2001:db8::a");
    expect(canonicalIpAddress("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(canonicalIpAddress("::FFFF:203.0.113.7")).toBe("203.0.113.7");
    expect(canonicalIpAddress("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(canonicalIpAddress("203.0.113.7")).toBe("203.0.113.7");
  });

  it("refuses anything but a plain address", () => {
    for (const text of [
      "",
      "unknown",
      "203.0.113.256",
      "203.0.113.07",
      "203.0.113.7/32",
      "fe80::1%eth0",
      " 203.0.113.7",
    ])
      expect(canonicalIpAddress(text), text).toBeNull();
  });

  it("takes a status report's exit addresses canonical and without repeats, and refuses a bad one", () => {
    const report = nodeStatusSchema.parse({
      publicKey: key(1),
      exitAddresses: ["203.0.113.7", "2001:DB8::7", "2001:db8:0::7"],
    });
    expect(report.exitAddresses).toEqual(["203.0.113.7", "2001:db8::7"]);
    expect(
      nodeStatusSchema.safeParse({ publicKey: key(1), exitAddresses: ["vpn.example.com"] }).success,
    ).toBe(false);
    const tooMany = Array.from({ length: 17 }, (_, index) => `203.0.113.${index}`);
    expect(exitAddressesSchema.safeParse(tooMany).success).toBe(false);
  });
});

describe("the tunnel settings of the node API (issue 22)", () => {
  it("gives an answer from an older control plane safe defaults: MTU 1280, no alternate port, no resolver", () => {
    const answer = checkPeerAnswer({ kind: "full", version: "1", server, peers: [] });
    expect(answer.server).toMatchObject({ mtu: 1280, alternatePorts: [], resolver: false });
    expect(answer.server.dnsCheckZone).toBeUndefined();
  });

  it("takes the settings the control plane sends", () => {
    const settings = {
      mtu: 1420,
      alternatePorts: [443, 53],
      resolver: true,
      dnsCheckZone: "dns-check.internal",
    };
    const answer = checkPeerAnswer({
      kind: "full",
      version: "1",
      server: { ...server, ...settings },
      peers: [],
    });
    expect(answer.server).toMatchObject(settings);
  });

  it.each([
    ["an MTU below 1280", { mtu: 1200 }],
    ["an MTU above 1420", { mtu: 1500 }],
    ["a port twice", { alternatePorts: [443, 443] }],
    ["a port out of range", { alternatePorts: [0] }],
    ["five ports", { alternatePorts: [1, 2, 3, 4, 5] }],
    ["a zone a public resolver answers", { dnsCheckZone: "example.com" }],
    ["a zone that is no DNS name", { dnsCheckZone: "a b.internal" }],
  ])("rejects an answer with %s", (_what, settings) => {
    expect(() =>
      checkPeerAnswer({ kind: "full", version: "1", server: { ...server, ...settings }, peers: [] }),
    ).toThrow(NodeApiError);
  });

  it("takes a status report's DNS check names only in their shape, at most 1000", () => {
    const report = { publicKey: key(1) };
    const nonce = "0123456789abcdef0123456789abcdef";
    expect(nodeStatusSchema.parse({ ...report, dnsChecks: [nonce] }).dnsChecks).toEqual([nonce]);
    expect(nodeStatusSchema.parse(report).dnsChecks).toBeUndefined();
    for (const bad of ["short", "UPPERCASE0123456789", `${nonce}.dns-check.internal`, "a".repeat(65)])
      expect(nodeStatusSchema.safeParse({ ...report, dnsChecks: [bad] }).success, bad).toBe(false);
    const many = Array.from({ length: 1001 }, (_, index) => `${nonce}${String(index).padStart(4, "0")}`);
    expect(nodeStatusSchema.safeParse({ ...report, dnsChecks: many }).success).toBe(false);
  });
});
