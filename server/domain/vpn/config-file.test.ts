import { describe, expect, it } from "vitest";
import type { VpnServer } from "#server/db/schema/index.ts";
import { createSealer } from "#server/secrets.ts";
import { ConfigRefused, renderClientConfig } from "./config-file.ts";
import { generateKeyPair } from "./keys.ts";
import { DNS_RULE, dnsSchema } from "./server-fields.ts";

const sealer = createSealer(Buffer.alloc(32, 3).toString("base64"));
const server = {
  name: "ng-lagos-1",
  endpoint: "203.0.113.10:51820",
  publicKey: generateKeyPair().publicKey,
  dns: "1.1.1.1",
} as VpnServer;
const device = {
  privateKeySealed: sealer.seal(generateKeyPair().privateKey),
  presharedKeySealed: sealer.seal(generateKeyPair().publicKey),
  ipv4: "10.66.0.2",
  ipv6: "fd66::2",
};

describe("the client config renderer", () => {
  it("renders a config from valid parts, one setting per line", () => {
    const text = renderClientConfig(device, server, sealer);
    expect(text).toContain("DNS = 1.1.1.1\n");
    expect(text).toContain("Endpoint = 203.0.113.10:51820\n");
    expect(text.split("\n").every((line) => line === "" || /^(\[\w+\]|\w+ = \S.*)$/.test(line))).toBe(true);
  });

  it("refuses any value with a control character, even one no schema checks (defence in depth)", () => {
    for (const bad of ["\n", "\r", "\u0000", "\u0085", "\u2028", "\u2029", "\u202e", "\u2066", "\ud800"]) {
      const injected = `PostUp = touch /tmp/x${bad}`;
      expect(() =>
        renderClientConfig({ ...device, ipv4: `10.66.0.2${bad}${injected}` }, server, sealer),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(device, { ...server, dns: `1.1.1.1${bad}${injected}` }, sealer),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(device, { ...server, endpoint: `203.0.113.10:51820${bad}` }, sealer),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(
          { ...device, privateKeySealed: sealer.seal(`key${bad}${injected}`) },
          server,
          sealer,
        ),
      ).toThrow(ConfigRefused);
    }
  });

  it("refuses a server whose stored settings break their grammar, naming the setting but not the value", () => {
    const refusal = (() => {
      try {
        renderClientConfig(device, { ...server, dns: "resolver.example.com" }, sealer);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigRefused);
    expect((refusal as Error).message).toContain("the dns setting of VPN server");
    expect((refusal as Error).message).not.toContain("resolver.example.com");
  });
});

describe("the dns setting", () => {
  it("takes 1 to 4 IP addresses, written canonically, and nothing else", () => {
    expect(dnsSchema.parse("1.1.1.1,2606:4700:4700:0::1111 ,  1.1.1.1")).toBe(
      "1.1.1.1, 2606:4700:4700::1111",
    );
    for (const bad of [
      "",
      "1.1.1.1\n",
      "1.1.1.1\tPostUp",
      "1.1.1.1,",
      "dns.example.com",
      "1.1.1.1, 1.0.0.1, 8.8.8.8, 8.8.4.4, 9.9.9.9",
      "1.1.1.1/32",
      "fe80::1%eth0",
    ]) {
      const parsed = dnsSchema.safeParse(bad);
      expect(parsed.success, JSON.stringify(bad)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(DNS_RULE);
    }
  });
});
