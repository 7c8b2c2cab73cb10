import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { addressesAt, poolCapacity } from "./addresses.ts";
import { generateKeyPair, generatePresharedKey, isWireGuardKey, publicKeyFromPrivate } from "./keys.ts";

function wg(args: string[], input: string): string {
  try {
    return execFileSync("wg", args, { input }).toString().trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error("wg (wireguard-tools) is not installed: apt-get install wireguard-tools");
    }
    throw error;
  }
}

describe("WireGuard keys", () => {
  it("makes thousands of distinct key pairs in a row, each matching `wg pubkey`", () => {
    // More than the few thousand after which JWK export deadlocked on Node 20 (docs/product.md §11.7).
    const pairs = Array.from({ length: 5000 }, () => generateKeyPair());
    expect(new Set(pairs.map((pair) => pair.privateKey)).size).toBe(5000);
    for (const pair of pairs) {
      expect(isWireGuardKey(pair.privateKey) && isWireGuardKey(pair.publicKey)).toBe(true);
      expect(publicKeyFromPrivate(pair.privateKey)).toBe(pair.publicKey);
    }
    for (const pair of pairs.slice(0, 5)) expect(wg(["pubkey"], pair.privateKey)).toBe(pair.publicKey);
  });

  it("derives the same public key as `wg pubkey`, for many keys in a row", () => {
    for (let index = 0; index < 20; index += 1) {
      const pair = generateKeyPair();
      expect(isWireGuardKey(pair.privateKey)).toBe(true);
      expect(wg(["pubkey"], pair.privateKey)).toBe(pair.publicKey);
      expect(publicKeyFromPrivate(pair.privateKey)).toBe(pair.publicKey);
    }
  });

  it("reads a key made by `wg genkey`", () => {
    const privateKey = wg(["genkey"], "");
    expect(publicKeyFromPrivate(privateKey)).toBe(wg(["pubkey"], privateKey));
  });

  it("makes distinct 32-byte preshared keys", () => {
    const first = generatePresharedKey();
    expect(Buffer.from(first, "base64")).toHaveLength(32);
    expect(generatePresharedKey()).not.toBe(first);
  });
});

describe("address pools", () => {
  it("puts a device's IPv4 and IPv6 at the same host offset", () => {
    expect(addressesAt("10.66.0.0/16", "fd66::/64", 2)).toEqual({ ipv4: "10.66.0.2", ipv6: "fd66::2" });
    expect(addressesAt("10.66.0.0/16", "fd66::/64", 300)).toEqual({ ipv4: "10.66.1.44", ipv6: "fd66::12c" });
    expect(addressesAt("198.51.100.0/24", "fd00:1:2:3::/64", 254)).toEqual({
      ipv4: "198.51.100.254",
      ipv6: "fd00:1:2:3::fe",
    });
  });

  it("knows the usable size of a pool and refuses offsets outside it", () => {
    expect(poolCapacity("198.51.100.0/24", "fd66::/64")).toBe(254);
    expect(() => addressesAt("198.51.100.0/24", "fd66::/64", 255)).toThrow(/outside the pool/);
    expect(() => addressesAt("198.51.100.0/24", "fd66::/64", 0)).toThrow(/outside the pool/);
  });
});
