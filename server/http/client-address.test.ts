import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address.ts";

describe("the address a client's limits count against", () => {
  it("is an IPv4 address itself, also when it arrives IPv6-mapped", () => {
    expect(clientAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    const block = "2001:db8:1:2::";
    for (const ip of ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2:abcd::9"])
      expect(clientAddress(ip), ip).toBe(block);
    expect(clientAddress("2001:db8:1:3::1")).not.toBe(block);
    expect(clientAddress("::1")).toBe("0:0:0:0::");
  });

  it("is 'unknown' when Node could not tell", () => {
    expect(clientAddress(undefined)).toBe("unknown");
  });
});
