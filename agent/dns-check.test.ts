import dgram from "node:dgram";
import dnsPacket from "dns-packet";
import { afterEach, describe, expect, it } from "vitest";
import { answerDnsCheck, dnsCheckZoneOf, serveDnsChecks, type DnsCheckAnswerer } from "./dns-check.ts";
import { server } from "./setup/plan-fixtures.ts";

const zone = { zone: "dns-check.internal", ipv4: "10.66.0.1", ipv6: "fd66::1" };
const NONCE = "k3x9q2m7v1c8z4b6";

const query = (name: string, type = "A", id = 4242) =>
  dnsPacket.encode({
    type: "query",
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: type as "A", name }],
  });
const rcodeOf = (packet: dnsPacket.DecodedPacket) => (packet as { rcode?: string }).rcode;

function ask(name: string, type = "A", given: typeof zone | null = zone) {
  const { response, nonce } = answerDnsCheck(query(name, type), given);
  return { packet: dnsPacket.decode(response!), nonce };
}

describe("the /check zone's answerer", () => {
  it("answers a visit's name with the node's tunnel address, TTL 0, and keeps its nonce", () => {
    const a = ask(`${NONCE}.dns-check.internal`);
    expect(a.nonce).toBe(NONCE);
    expect(a.packet).toMatchObject({ type: "response", id: 4242, flag_aa: true, flag_rd: true });
    expect(rcodeOf(a.packet)).toBe("NOERROR");
    expect(a.packet.answers).toEqual([
      expect.objectContaining({ type: "A", name: `${NONCE}.dns-check.internal`, ttl: 0, data: "10.66.0.1" }),
    ]);
    const aaaa = ask(`${NONCE}.dns-check.internal`, "AAAA");
    expect(aaaa.packet.answers).toEqual([expect.objectContaining({ type: "AAAA", ttl: 0, data: "fd66::1" })]);
  });

  it("keeps the nonce of any query type (browsers also ask for HTTPS records), answering no data", () => {
    const https = ask(`${NONCE}.dns-check.internal`, "UNKNOWN_65");
    expect(https.nonce).toBe(NONCE);
    expect(rcodeOf(https.packet)).toBe("NOERROR");
    expect(https.packet.answers).toEqual([]);
    expect(https.packet.authorities).toEqual([
      expect.objectContaining({ type: "SOA", name: "dns-check.internal" }),
    ]);
  });

  it("reads a name in any letter case, as resolvers may send it", () => {
    const mixed = ask(`${NONCE.toUpperCase()}.DNS-Check.Internal.`);
    expect(mixed.nonce).toBe(NONCE);
    expect(mixed.packet.answers?.[0]).toMatchObject({ name: `${NONCE.toUpperCase()}.DNS-Check.Internal` });
  });

  it("says the zone's other names do not exist, and keeps nothing", () => {
    for (const name of [
      "www.dns-check.internal",
      `x.${NONCE}.dns-check.internal`,
      "short.dns-check.internal",
    ]) {
      const { packet, nonce } = ask(name);
      expect(nonce).toBeNull();
      expect(rcodeOf(packet)).toBe("NXDOMAIN");
    }
    const apex = ask("dns-check.internal", "SOA");
    expect(apex.nonce).toBeNull();
    expect(apex.packet.answers).toEqual([expect.objectContaining({ type: "SOA" })]);
  });

  it("refuses names outside the zone, and everything before it knows its zone", () => {
    expect(rcodeOf(ask(`${NONCE}.example.com`).packet)).toBe("REFUSED");
    expect(rcodeOf(ask(`${NONCE}.internal`).packet)).toBe("REFUSED");
    const unconfigured = ask(`${NONCE}.dns-check.internal`, "A", null);
    expect(rcodeOf(unconfigured.packet)).toBe("REFUSED");
    expect(unconfigured.nonce).toBeNull();
  });

  it("does not answer what is not a DNS query", () => {
    expect(answerDnsCheck(Buffer.from("not dns"), zone)).toEqual({ response: null, nonce: null });
    const response = dnsPacket.encode({
      type: "response",
      id: 1,
      questions: [{ type: "A", name: "a.dns-check.internal" }],
    });
    expect(answerDnsCheck(response, zone).response).toBeNull();
  });

  it("answers only for a server with a resolver and a zone", () => {
    expect(dnsCheckZoneOf(server)).toEqual(zone);
    expect(dnsCheckZoneOf({ ...server, resolver: false })).toBeNull();
    expect(dnsCheckZoneOf({ ...server, dnsCheckZone: undefined })).toBeNull();
  });
});

describe("the answerer on its UDP port", () => {
  let answerer: DnsCheckAnswerer | undefined;
  afterEach(async () => answerer?.close());

  async function roundTrip(port: number, name: string) {
    const socket = dgram.createSocket("udp4");
    try {
      const reply = new Promise<Buffer>((resolve) => socket.once("message", resolve));
      socket.send(query(name), port, "127.0.0.1");
      return dnsPacket.decode(await reply);
    } finally {
      socket.close();
    }
  }

  it("answers over UDP, hands each nonce over once, and takes back those of a failed report", async () => {
    answerer = await serveDnsChecks({ port: 0 });
    answerer.configure(zone);
    let told = 0;
    answerer.onNonce(() => (told += 1));
    const port = answerer.port;
    const reply = await roundTrip(port, `${NONCE}.dns-check.internal`);
    expect(reply.answers?.[0]).toMatchObject({ data: "10.66.0.1" });
    await roundTrip(port, `${NONCE}.dns-check.internal`);
    expect(told).toBe(1);
    expect(answerer.take()).toEqual([NONCE]);
    expect(answerer.take()).toEqual([]);
    answerer.putBack([NONCE]);
    expect(answerer.take()).toEqual([NONCE]);
    // At most the report's limit wait for the next report.
    answerer.putBack(Array.from({ length: 1001 }, (_, index) => `${NONCE}${index}`));
    expect(answerer.take()).toHaveLength(1000);
  });
});
