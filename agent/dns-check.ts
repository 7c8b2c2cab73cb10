// The agent's answer to /check's DNS test. The node's resolver (unbound, set up by
// `setup`) hands every name under the check zone to this tiny authoritative answerer on
// 127.0.0.1: `<nonce>.<zone>` gets the node's own tunnel address (TTL 0), and the nonce (the
// visit's random first label) is kept until the next status report. Nothing else is kept or logged:
// no source address, no time, no other name.
import dgram from "node:dgram";
import dnsPacket, { type Answer, type Packet } from "dns-packet";
import { dnsCheckNonceSchema, MAX_DNS_CHECKS, type NodeServer } from "./node-api.ts";
import { ownAddress } from "./setup/nft-table.ts";

export const DEFAULT_DNS_CHECK_PORT = 9553;
const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, REFUSED: 5 } as const;

/** What the answerer says: the zone and the node interface's own addresses (without prefix). */
export interface DnsCheckZone {
  zone: string;
  ipv4: string;
  ipv6: string;
}

/** What to answer for this server: nothing unless it has a resolver and a check zone. */
export function dnsCheckZoneOf(server: NodeServer): DnsCheckZone | null {
  if (!server.resolver || !server.dnsCheckZone) return null;
  return { zone: server.dnsCheckZone, ipv4: ownAddress(server.ipv4), ipv6: ownAddress(server.ipv6) };
}

/** The zone's SOA, sent with every negative answer so resolvers may cache the absence (TTL 0: not at all). */
function soa(zone: string): Answer {
  return {
    type: "SOA",
    name: zone,
    ttl: 0,
    data: {
      mname: zone,
      rname: `hostmaster.${zone}`,
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 86_400,
      minimum: 0,
    },
  };
}

/**
 * The response to one query (null: not a DNS query, no answer at all) and the nonce it carried.
 * Pure, so the rules are unit-tested: only `<nonce>.<zone>` is a check; the zone's other names do
 * not exist; names outside the zone are refused.
 */
export function answerDnsCheck(
  query: Buffer,
  zone: DnsCheckZone | null,
): { response: Buffer | null; nonce: string | null } {
  let packet: Packet;
  try {
    packet = dnsPacket.decode(query);
  } catch {
    return { response: null, nonce: null };
  }
  if (packet.type !== "query") return { response: null, nonce: null };
  const rd = (packet.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
  const reply = (rcode: number, extra: Partial<Packet> = {}) =>
    dnsPacket.encode({
      type: "response",
      id: packet.id ?? 0,
      flags: rd | rcode | (rcode === RCODE.REFUSED ? 0 : dnsPacket.AUTHORITATIVE_ANSWER),
      questions: packet.questions,
      ...extra,
    });
  const [question, ...more] = packet.questions ?? [];
  const opcode = ((packet.flags ?? 0) >> 11) & 0xf;
  if (!question || more.length > 0 || opcode !== 0) return { response: reply(RCODE.FORMERR), nonce: null };
  if (!zone) return { response: reply(RCODE.REFUSED), nonce: null };

  const name = question.name.toLowerCase().replace(/\.$/, "");
  const suffix = `.${zone.zone}`;
  if (name === zone.zone)
    return {
      response:
        question.type === "SOA"
          ? reply(RCODE.NOERROR, { answers: [soa(zone.zone)] })
          : reply(RCODE.NOERROR, { authorities: [soa(zone.zone)] }),
      nonce: null,
    };
  if (!name.endsWith(suffix)) return { response: reply(RCODE.REFUSED), nonce: null };
  const label = name.slice(0, -suffix.length);
  if (!dnsCheckNonceSchema.safeParse(label).success)
    return { response: reply(RCODE.NXDOMAIN, { authorities: [soa(zone.zone)] }), nonce: null };

  const address = question.type === "A" ? zone.ipv4 : question.type === "AAAA" ? zone.ipv6 : null;
  const response = address
    ? reply(RCODE.NOERROR, {
        answers: [{ type: question.type as "A" | "AAAA", name: question.name, ttl: 0, data: address }],
      })
    : reply(RCODE.NOERROR, { authorities: [soa(zone.zone)] });
  return { response, nonce: label };
}

export interface DnsCheckAnswerer {
  /** The UDP port it answers on. */
  readonly port: number;
  /** The zone and addresses to answer with, as the control plane last described the server. */
  configure(zone: DnsCheckZone | null): void;
  /** The nonces asked for since the last take, at most MAX_DNS_CHECKS. */
  take(): string[];
  /** Gives back nonces whose report failed, so the next report carries them. */
  putBack(nonces: string[]): void;
  /** Called when a nonce not yet pending arrives (the agent then reports soon). */
  onNonce(listener: () => void): void;
  close(): Promise<void>;
}

/** Answers check-zone queries on UDP `host:port` (127.0.0.1: only the node's own resolver asks). */
export async function serveDnsChecks(options: { port: number; host?: string }): Promise<DnsCheckAnswerer> {
  const socket = dgram.createSocket("udp4");
  let zone: DnsCheckZone | null = null;
  let pending = new Set<string>();
  const listeners: Array<() => void> = [];
  const remember = (nonce: string) => {
    if (pending.has(nonce) || pending.size >= MAX_DNS_CHECKS) return;
    pending.add(nonce);
    for (const listener of listeners) listener();
  };
  socket.on("message", (message, peer) => {
    const { response, nonce } = answerDnsCheck(message, zone);
    if (nonce) remember(nonce);
    if (response) socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(options.port, options.host ?? "127.0.0.1", () => {
      socket.off("error", reject);
      resolve();
    });
  });
  // A send to a resolver that went away must not end the agent.
  socket.on("error", () => undefined);
  return {
    port: socket.address().port,
    configure(next) {
      zone = next;
    },
    take() {
      const taken = [...pending];
      pending = new Set();
      return taken;
    },
    putBack(nonces) {
      for (const nonce of nonces) if (pending.size < MAX_DNS_CHECKS) pending.add(nonce);
    },
    onNonce(listener) {
      listeners.push(listener);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
