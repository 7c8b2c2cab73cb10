import { describe, expect, it } from "vitest";
import { abroad, countryDatabase, describeExit, exitCountries } from "./exit-country.ts";

describe("where an exit address appears to be", () => {
  it("finds Nigerian and foreign addresses in the shipped database, and says which are not in it", async () => {
    const exits = await exitCountries([
      "197.210.64.1", // MTN Nigeria
      "2c0f:f5c0::1", // an IPv6 block registered in Nigeria
      "8.8.8.8",
      "192.0.2.1", // documentation ranges (RFC 5737, RFC 3849) and private space belong to no country
      "198.51.100.7",
      "203.0.113.10",
      "2001:db8::1",
      "10.0.0.1",
    ]);
    expect(exits.map((exit) => exit.country)).toEqual(["NG", "NG", "US", null, null, null, null, null]);
    expect(abroad(exits)).toEqual([{ address: "8.8.8.8", country: "US" }]);
    expect(exits.map(describeExit).slice(0, 4)).toEqual([
      "197.210.64.1 (appears in NG)",
      "2c0f:f5c0::1 (appears in NG)",
      "8.8.8.8 (appears in US, not NG)",
      "192.0.2.1 (not in the country database)",
    ]);
  });

  it("knows the date of its data", async () => {
    const { builtAt } = await countryDatabase();
    expect(builtAt.getTime()).toBeGreaterThan(Date.parse("2024-01-01"));
    expect(builtAt.getTime()).toBeLessThan(Date.now());
  });
});
