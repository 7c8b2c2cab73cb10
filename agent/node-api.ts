// The node API contract (`/api/nodes/*`), shared by the control plane (which validates what
// nodes send) and the node agent (which validates every answer and every peer). Self-contained:
// the agent is bundled alone, so nothing here may import from server/ or app/.
import { z } from "zod";
import { cidrOf, exitAddressesSchema, poolChecker } from "./ip-addresses.ts";

export { canonicalIpAddress, exitAddressesSchema, MAX_EXIT_ADDRESSES, poolChecker } from "./ip-addresses.ts";

export const NODE_PEERS_PATH = "api/nodes/peers";
export const NODE_STATUS_PATH = "api/nodes/status";
/** `GET`: the address the node's requests come from, as the control plane sees it. */
export const NODE_WHOAMI_PATH = "api/nodes/whoami";

export const nodeWhoamiSchema = z.object({ address: z.string().min(2).max(64) });
/** The longest the control plane holds a long-poll before answering 304. */
export const MAX_WAIT_SECONDS = 25;

const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
export const wireGuardKeySchema = z.string().regex(WIREGUARD_KEY, "must be a base64 WireGuard key");

/** Opaque to the agent: it hands back the last version it applied. */
const versionSchema = z.string().min(1).max(64);

/** The MTU of clients' tunnels and the node's interface: 1280 (IPv6's minimum) fits every path. */
export const CLIENT_MTU = { min: 1280, max: 1420, default: 1280 } as const;
export const clientMtuSchema = z
  .number()
  .int()
  .min(CLIENT_MTU.min, `the MTU must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`)
  .max(CLIENT_MTU.max, `the MTU must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`);

export const MAX_ALTERNATE_PORTS = 4;
const portSchema = z.number().int().min(1, "a port is 1-65535").max(65_535, "a port is 1-65535");
/** Extra UDP ports a node accepts WireGuard on (each redirected to its listen port), without repeats. */
export const alternatePortsSchema = z
  .array(portSchema)
  .max(MAX_ALTERNATE_PORTS, `at most ${MAX_ALTERNATE_PORTS} alternate ports`)
  .refine((ports) => new Set(ports).size === ports.length, "an alternate port is listed twice");

/** A per-visit name's first label, as /check makes it. */
export const dnsCheckNonceSchema = z
  .string()
  .regex(/^[a-z0-9]{16,64}$/, "must be 16-64 lower-case letters and digits");
export const MAX_DNS_CHECKS = 1000;

export const DNS_CHECK_ZONE_RULE =
  "must be a DNS name under the reserved .internal top-level domain, such as dns-check.internal";
/** The zone whose names the node's resolver hands to the agent: under `.internal`, so no public resolver answers it. */
export const dnsCheckZoneSchema = z
  .string()
  .max(200)
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+internal$/, DNS_CHECK_ZONE_RULE);

const settingsVersionSchema = z.number().int().min(0).max(2_147_483_647);

export const nodeServerSchema = z.object({
  name: z.string().min(1).max(63),
  listenPort: z.number().int().min(1).max(65_535),
  /** The interface's own addresses, such as 10.66.0.1/16 and fd66::1/64. */
  ipv4: cidrOf(4),
  ipv6: cidrOf(6),
  /** The pools every peer's allowed IPs must lie in. */
  ipv4Pool: cidrOf(4),
  ipv6Pool: cidrOf(6),
  // The four below default safely, so an agent also works against an older control plane.
  /** The interface MTU, the same as the clients' config `MTU =`. */
  mtu: clientMtuSchema.default(CLIENT_MTU.default),
  /** UDP ports setup redirects to the listen port. */
  alternatePorts: alternatePortsSchema.default([]),
  /** Whether setup runs a resolver on the interface's own addresses, which configs then name. */
  resolver: z.boolean().default(false),
  /** Names under this zone are answered by the agent itself (the /check DNS test). */
  dnsCheckZone: dnsCheckZoneSchema.optional(),
  /**
   * The version of the four settings above (decision 129): the running agent applies them and
   * reports the version back. Absent from an older control plane.
   */
  settingsVersion: settingsVersionSchema.optional(),
});
export type NodeServer = z.infer<typeof nodeServerSchema>;

export const desiredPeerSchema = z.object({
  publicKey: wireGuardKeySchema,
  presharedKey: wireGuardKeySchema,
  /** The device's `ipv4/32` and `ipv6/128`. */
  allowedIps: z.array(z.string().max(64)).length(2),
});
export type DesiredPeer = z.infer<typeof desiredPeerSchema>;

function peerAnswerOf<Peer extends z.ZodType, Key extends z.ZodType>(peer: Peer, key: Key) {
  return z.discriminatedUnion("kind", [
    /** Every peer the server must carry. */
    z.object({
      kind: z.literal("full"),
      version: versionSchema,
      server: nodeServerSchema,
      peers: z.array(peer),
    }),
    /** What changed since the agent's version: peers to add or replace, keys to remove. */
    z.object({
      kind: z.literal("changes"),
      since: versionSchema,
      version: versionSchema,
      server: nodeServerSchema,
      upserts: z.array(peer),
      removals: z.array(key),
    }),
  ]);
}

/** `GET /api/nodes/peers` answers this with 200 (304 when nothing changed). */
export const peerAnswerSchema = peerAnswerOf(desiredPeerSchema, wireGuardKeySchema);
export type PeerAnswer = z.infer<typeof peerAnswerSchema>;

/**
 * `GET /api/nodes/peers?since=<version>&wait=<seconds>`: the changes since that version (the
 * full set when the version is unknown or too old), held up to `wait` seconds until there are any.
 * Without `since`, the full set (`If-None-Match: "<version>"` → 304 when unchanged).
 */
export const peersQuerySchema = z.object({
  since: versionSchema.optional(),
  wait: z.coerce.number().int().min(0).max(MAX_WAIT_SECONDS).optional(),
});

/** The most services staff may list, each fetched from every exit (decision 133). */
export const MAX_STREAMING_SERVICES = 10;

/** One streaming service as the agent fetches it: the answer that means "works from here". */
export const streamingCheckSchema = z.object({
  id: z.uuid(),
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** The HTTP status expected; redirects are not followed, so a redirect is its own status. */
  expectStatus: z.number().int().min(100).max(599),
  /** A text the answer's body must hold (case-insensitive). */
  bodyContains: z.string().min(1).max(200).optional(),
  /** A text the answer's body must not hold, such as a geo-block page's words. */
  bodyLacks: z.string().min(1).max(200).optional(),
});
export type StreamingCheck = z.infer<typeof streamingCheckSchema>;

/** What one check found: worked, or why not; `checkedAt` in Unix seconds. */
export const streamingResultSchema = z.object({
  id: z.uuid(),
  ok: z.boolean(),
  /** The status answered; absent when no answer came. */
  status: z.number().int().min(100).max(599).optional(),
  reason: z.string().max(300).optional(),
  checkedAt: z.number().int().min(0).max(4_102_444_800),
});
export type StreamingResult = z.infer<typeof streamingResultSchema>;

/** `POST /api/nodes/status` answers this: the services to check (absent from an older control plane). */
export const nodeStatusAnswerSchema = z.object({
  streamingChecks: z.array(streamingCheckSchema).max(MAX_STREAMING_SERVICES).optional(),
});

/** `POST /api/nodes/status`: the node's public key, applied version and changed handshakes. */
export const nodeStatusSchema = z.object({
  /** The public key of the node's interface (its private key never leaves the node). */
  publicKey: wireGuardKeySchema,
  appliedVersion: z.string().max(100).nullable().optional(),
  /** How many peers the node's interface holds (the staff console compares it with the desired set). */
  appliedPeers: z.number().int().min(0).max(10_000_000).optional(),
  /** The node's public exit addresses, when its operator configured them (NAIJALINK_EXIT_ADDRESSES). */
  exitAddresses: exitAddressesSchema.optional(),
  /**
   * The node settings the running agent last applied (decision 129): the settings version it
   * tried, the interface's MTU as it is now, and why applying failed (absent when it worked).
   */
  settings: z
    .object({
      version: settingsVersionSchema,
      mtu: z.number().int().min(576).max(65_535),
      error: z.string().max(500).optional(),
    })
    .optional(),
  /** Results of the streaming checks run since the last report (decision 133). */
  streamingChecks: z.array(streamingResultSchema).max(MAX_STREAMING_SERVICES).optional(),
  /** The /check names its resolver was asked for since the last report (their first labels). */
  dnsChecks: z.array(dnsCheckNonceSchema).max(MAX_DNS_CHECKS).optional(),
  /** Peers whose handshake or transfer counters changed since the last report. */
  peers: z
    .array(
      z
        .object({
          publicKey: wireGuardKeySchema,
          // Unix seconds (0 = never); anything past 2100 is not a clock reading, and would not fit a timestamp.
          latestHandshake: z.number().int().min(0).max(4_102_444_800),
          /** The interface's raw counters for the peer (`wg show dump`), both or neither; safe integers. */
          rxBytes: z.number().int().min(0).optional(),
          txBytes: z.number().int().min(0).optional(),
        })
        .refine((peer) => (peer.rxBytes === undefined) === (peer.txBytes === undefined), {
          message: "rxBytes and txBytes are reported together",
        }),
    )
    .max(100_000)
    .default([]),
});
export type NodeStatus = z.input<typeof nodeStatusSchema>;

export class NodeApiError extends Error {}

/** An answer the agent may apply: peers that do not fit were left out and counted in `refused`. */
export type CheckedAnswer =
  | { kind: "full"; version: string; server: NodeServer; peers: DesiredPeer[]; refused: number }
  | {
      kind: "changes";
      since: string;
      version: string;
      server: NodeServer;
      upserts: DesiredPeer[];
      removals: string[];
      refused: number;
    };

const peerAnswerEnvelope = peerAnswerOf(z.unknown(), z.unknown());

/**
 * Validates a peers answer. A malformed envelope throws; a peer that does not fit (bad key,
 * allowed IPs not one /32 and one /128 inside the pools) is refused, and when its public key is
 * readable it is treated as a removal, so a refused change never leaves the old peer in place.
 */
export function checkPeerAnswer(body: unknown): CheckedAnswer {
  const envelope = peerAnswerEnvelope.safeParse(body);
  if (!envelope.success) {
    const issue = envelope.error.issues[0]!;
    throw new NodeApiError(`unexpected peers answer (${issue.path.join(".")}: ${issue.message})`);
  }
  const answer = envelope.data;
  const fits = poolChecker(answer.server);
  let refused = 0;
  const removals: string[] = [];
  const accept = (raw: unknown): DesiredPeer | null => {
    const peer = desiredPeerSchema.safeParse(raw);
    if (peer.success && fits(peer.data.allowedIps)) return peer.data;
    refused += 1;
    const key = wireGuardKeySchema.safeParse((raw as { publicKey?: unknown } | null)?.publicKey);
    if (key.success) removals.push(key.data);
    return null;
  };
  const acceptAll = (raws: unknown[]) =>
    raws.map(accept).filter((peer): peer is DesiredPeer => peer !== null);
  if (answer.kind === "full") {
    const peers = acceptAll(answer.peers);
    return { kind: "full", version: answer.version, server: answer.server, peers, refused };
  }
  const upserts = acceptAll(answer.upserts);
  for (const raw of answer.removals) {
    const key = wireGuardKeySchema.safeParse(raw);
    if (key.success) removals.push(key.data);
    else refused += 1;
  }
  const { since, version, server } = answer;
  return { kind: "changes", since, version, server, upserts, removals, refused };
}
