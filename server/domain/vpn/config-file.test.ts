// The text of a client config: the MTU line, whose resolver DNS names, and the alternate-port
// variant of the same device (decision 090); no stored value can add a line (decision 086).
import { describe, expect, it } from "vitest";
import type { VpnServer } from "#server/db/schema/index.ts";
import { createSealer } from "#server/secrets.ts";
import {
  alternateOffer,
  ConfigRefused,
  endpointOnPort,
  renderClientConfig,
  type ClientConfigServer,
} from "./config-file.ts";
import { generateKeyPair, generatePresharedKey } from "./keys.ts";
import { DNS_RULE, dnsSchema } from "./server-fields.ts";

const sealer = createSealer(Buffer.alloc(32, 9).toString("base64"));
const keys = generateKeyPair();
const presharedKey = generatePresharedKey();
const device = {
  privateKeySealed: sealer.seal(keys.privateKey),
  presharedKeySealed: sealer.seal(presharedKey),
  ipv4: "10.66.0.7",
  ipv6: "fd66::7",
};
const nodeKey = generateKeyPair().publicKey;
const server: ClientConfigServer = {
  name: "ng-lagos-1",
  publicKey: nodeKey,
  endpoint: "vpn.naijalink.example:51820",
  dns: "1.1.1.1, 2606:4700:4700::1111",
  nodeResolver: true,
  ipv4Cidr: "10.66.0.0/16",
  ipv6Cidr: "fd66::/64",
  clientMtu: 1280,
  appliedClientMtu: null,
  alternatePorts: [443],
  appliedAlternatePorts: null,
  appliedNodeResolver: null,
};

/** `Key = value` lines of one section. */
function section(text: string, name: string): Record<string, string> {
  const lines = text.split(`[${name}]\n`)[1]!.split("\n\n")[0]!.split("\n");
  return Object.fromEntries(lines.filter(Boolean).map((line) => line.split(" = ") as [string, string]));
}

describe("client config text", () => {
  it("is a whole WireGuard config: keys, addresses, MTU 1280 by default, the node's resolver, the endpoint", () => {
    const text = renderClientConfig(device, server, sealer);
    expect(text).toBe(
      [
        "[Interface]",
        `PrivateKey = ${keys.privateKey}`,
        "Address = 10.66.0.7/32, fd66::7/128",
        "DNS = 10.66.0.1, fd66::1",
        "MTU = 1280",
        "",
        "[Peer]",
        `PublicKey = ${nodeKey}`,
        `PresharedKey = ${presharedKey}`,
        "Endpoint = vpn.naijalink.example:51820",
        "AllowedIPs = 0.0.0.0/0, ::/0",
        "PersistentKeepalive = 25",
        "",
      ].join("\n"),
    );
  });

  it("carries the server's MTU", () => {
    expect(section(renderClientConfig(device, { ...server, clientMtu: 1420 }, sealer), "Interface").MTU).toBe(
      "1420",
    );
  });

  it("carries the MTU the node applied while a new one is pending (decision 129)", () => {
    const pending = { ...server, clientMtu: 1380, appliedClientMtu: 1280 };
    expect(section(renderClientConfig(device, pending, sealer), "Interface").MTU).toBe("1280");
    const applied = { ...server, clientMtu: 1380, appliedClientMtu: 1380 };
    expect(section(renderClientConfig(device, applied, sealer), "Interface").MTU).toBe("1380");
  });

  it("names the node's own tunnel addresses for DNS, or the operator's resolvers when opted out", () => {
    const other = { ...server, ipv4Cidr: "10.70.8.0/22", ipv6Cidr: "fd70:1:2::/64" };
    expect(section(renderClientConfig(device, other, sealer), "Interface").DNS).toBe(
      "10.70.8.1, fd70:1:2::1",
    );
    const optedOut = { ...server, nodeResolver: false };
    expect(section(renderClientConfig(device, optedOut, sealer), "Interface").DNS).toBe(
      "1.1.1.1, 2606:4700:4700::1111",
    );
  });

  it("gives the alternate-port variant the same keys and addresses, and only another port", () => {
    const usual = renderClientConfig(device, server, sealer);
    const variant = renderClientConfig(device, server, sealer, { port: 443 });
    expect(section(variant, "Peer").Endpoint).toBe("vpn.naijalink.example:443");
    expect(variant.replace(":443\n", ":51820\n")).toBe(usual);
  });

  it("keeps an IPv6 endpoint's brackets on the alternate port", () => {
    const ipv6 = { ...server, endpoint: "[2001:db8::1]:51820" };
    expect(section(renderClientConfig(device, ipv6, sealer, { port: 443 }), "Peer").Endpoint).toBe(
      "[2001:db8::1]:443",
    );
    expect(endpointOnPort("[2001:db8::1]:51820", 53)).toBe("[2001:db8::1]:53");
    expect(endpointOnPort("203.0.113.10:51820", 443)).toBe("203.0.113.10:443");
  });

  it("offers the first alternate port's variant at the same link with ?port=, and nothing without one", () => {
    const link = "https://naijalink.example/api/configs/tok_0123456789abcdef";
    expect(alternateOffer(link, { alternatePorts: [443, 53], appliedAlternatePorts: null })).toEqual({
      port: 443,
      downloadUrl: `${link}?port=443`,
    });
    expect(alternateOffer(link, { alternatePorts: [], appliedAlternatePorts: null })).toBeUndefined();
    // The node has not applied the new ports yet: the ones it redirects are offered (decision 133).
    expect(alternateOffer(link, { alternatePorts: [443], appliedAlternatePorts: [53] })?.port).toBe(53);
    expect(alternateOffer(link, { alternatePorts: [443], appliedAlternatePorts: [] })).toBeUndefined();
  });

  it("carries the ports and resolver the node last applied, not the ones it has yet to apply", () => {
    const pending = { ...server, alternatePorts: [443, 4500], appliedAlternatePorts: [443] };
    expect(renderClientConfig(device, pending, sealer, { port: 443 })).toContain(
      "Endpoint = vpn.naijalink.example:443",
    );
    expect(() => renderClientConfig(device, pending, sealer, { port: 4500 })).toThrow(ConfigRefused);
    const toNode = { ...server, nodeResolver: true, appliedNodeResolver: false };
    expect(section(renderClientConfig(device, toNode, sealer), "Interface").DNS).toBe(
      "1.1.1.1, 2606:4700:4700::1111",
    );
    const awayFromNode = { ...server, nodeResolver: false, dns: "9.9.9.9", appliedNodeResolver: true };
    expect(section(renderClientConfig(device, awayFromNode, sealer), "Interface").DNS).toBe(
      "10.66.0.1, fd66::1",
    );
  });

  it("refuses a server whose node has not registered its key yet", () => {
    expect(() => renderClientConfig(device, { ...server, publicKey: null }, sealer)).toThrow(/no registered/);
  });
});

const plainSealer = createSealer(Buffer.alloc(32, 3).toString("base64"));
const plainServer = {
  name: "ng-lagos-1",
  endpoint: "203.0.113.10:51820",
  publicKey: generateKeyPair().publicKey,
  dns: "1.1.1.1",
  nodeResolver: false,
  ipv4Cidr: "10.66.0.0/16",
  ipv6Cidr: "fd66::/64",
  clientMtu: 1280,
  appliedClientMtu: null,
  alternatePorts: [443],
} as VpnServer;
const plainDevice = {
  privateKeySealed: plainSealer.seal(generateKeyPair().privateKey),
  presharedKeySealed: plainSealer.seal(generateKeyPair().publicKey),
  ipv4: "10.66.0.2",
  ipv6: "fd66::2",
};

describe("the client config renderer", () => {
  it("renders a config from valid parts, one setting per line", () => {
    const text = renderClientConfig(plainDevice, plainServer, plainSealer);
    expect(text).toContain("DNS = 1.1.1.1\n");
    expect(text).toContain("Endpoint = 203.0.113.10:51820\n");
    expect(text.split("\n").every((line) => line === "" || /^(\[\w+\]|\w+ = \S.*)$/.test(line))).toBe(true);
  });

  it("refuses any value with a control character, even one no schema checks (defence in depth)", () => {
    for (const bad of ["\n", "\r", "\u0000", "\u0085", "\u2028", "\u2029", "\u202e", "\u2066", "\ud800"]) {
      const injected = `PostUp = touch /tmp/x${bad}`;
      expect(() =>
        renderClientConfig({ ...plainDevice, ipv4: `10.66.0.2${bad}${injected}` }, plainServer, plainSealer),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(plainDevice, { ...plainServer, dns: `1.1.1.1${bad}${injected}` }, plainSealer),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(
          plainDevice,
          { ...plainServer, endpoint: `203.0.113.10:51820${bad}` },
          plainSealer,
        ),
      ).toThrow(ConfigRefused);
      expect(() =>
        renderClientConfig(
          { ...plainDevice, privateKeySealed: plainSealer.seal(`key${bad}${injected}`) },
          plainServer,
          plainSealer,
        ),
      ).toThrow(ConfigRefused);
    }
  });

  it("refuses a server whose stored settings break their grammar, naming the setting but not the value", () => {
    const refusal = (() => {
      try {
        renderClientConfig(plainDevice, { ...plainServer, dns: "resolver.example.com" }, plainSealer);
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
