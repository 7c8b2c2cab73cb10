import type { VpnServerStatus } from "#server/db/schema/index.ts";
import { NODE_SEEN_WINDOW_MS } from "./nodes.ts";

// What a VPN server is doing, in the operator's words: the one function that
// `/admin/servers`, `npm run vpn -- list-servers`, `npm run doctor` and the "sales are stopped"
// explanation all read. Whether it takes devices follows the allocation rule of servers.ts
// (`canTakeDevice`): active, its node's key registered, an address left; the demo's placeholder
// only until a real node has registered.

export const SERVER_STATES = [
  "awaiting-node",
  "online",
  "silent",
  "draining",
  "disabled",
  "full",
  "placeholder",
  "retired",
] as const;

export type ServerState = (typeof SERVER_STATES)[number];

export interface ServerStateInput {
  status: VpnServerStatus;
  development: boolean;
  keyRegistered: boolean;
  lastSeenAt: Date | string | null;
  liveDevices: number;
  capacity: number;
}

export interface ServerStateContext {
  now: Date;
  /** A real (not development) server's node has registered its key: the placeholder retires. */
  realNodeRegistered: boolean;
}

export interface ServerCondition {
  state: ServerState;
  /** Whether a new device may be issued on it now (the allocation rule, servers.ts). */
  takesDevices: boolean;
  /** One line for the operator: what it means and, when something is wrong, what to do. */
  explanation: string;
}

const EXPLANATIONS: Record<ServerState, string> = {
  "awaiting-node":
    "awaiting its node: no agent has registered yet, so it takes no devices. On the node, run the agent's setup with this server's node token (docs/operating.md §5).",
  online: "online: its agent reports and it takes new devices.",
  silent:
    "silent: its agent has stopped reporting. It still takes devices, but changes reach buyers only once the node is back: on the node, systemctl status naijalink-agent.",
  draining:
    "draining: it takes no new devices; its devices keep working. npm run vpn -- enable-server to undo.",
  disabled:
    "disabled: it takes no new devices and its node drops their peers. npm run vpn -- enable-server to undo.",
  full: "full: every address of its pools is in use. Add a server, or move devices off it.",
  placeholder:
    "development placeholder: it takes the demo's devices until a real node registers, but its configs can never connect.",
  retired:
    "retired development placeholder: it takes no new devices. Move or revoke its devices (npm run vpn -- move-devices / revoke-devices), then remove it.",
};

/** The one rule; see the file comment. */
export function serverCondition(server: ServerStateInput, context: ServerStateContext): ServerCondition {
  const state = stateOf(server, context);
  const takesDevices =
    state === "online" ||
    state === "silent" ||
    state === "placeholder" ||
    // A key given at add-server (--public-key) lets it take devices before its agent first reports.
    (state === "awaiting-node" && server.keyRegistered);
  return { state, takesDevices, explanation: EXPLANATIONS[state] };
}

function stateOf(server: ServerStateInput, { now, realNodeRegistered }: ServerStateContext): ServerState {
  if (server.status === "disabled") return "disabled";
  if (server.development)
    return server.status === "active" && !realNodeRegistered ? "placeholder" : "retired";
  if (server.status === "draining") return "draining";
  if (!server.keyRegistered) return "awaiting-node";
  if (server.liveDevices >= server.capacity) return "full";
  if (server.lastSeenAt === null) return "awaiting-node";
  const lastSeen = new Date(server.lastSeenAt).getTime();
  return now.getTime() - lastSeen > NODE_SEEN_WINDOW_MS ? "silent" : "online";
}
