import {
  checkPeerAnswer,
  NODE_PEERS_PATH,
  NODE_STATUS_PATH,
  NODE_WHOAMI_PATH,
  NodeApiError,
  canonicalIpAddress,
  nodeStatusAnswerSchema,
  nodeWhoamiSchema,
  type StreamingCheck,
  type CheckedAnswer,
  type NodeStatus,
} from "./node-api.ts";

export type PeerStatus = NodeStatus["peers"] extends Array<infer Peer> | undefined ? Peer : never;

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    public readonly status?: number,
  ) {
    super(message);
  }
}

/** Time a request may take beyond the long-poll's own hold. */
const REQUEST_TIMEOUT_MS = 15_000;

/** The control plane's node API (`/api/nodes/*`), authenticated with the node token. */
export class ControlPlane {
  constructor(
    private readonly apiUrl: string,
    private readonly nodeToken: string,
  ) {}

  private async call(
    pathname: string,
    init: RequestInit & { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<Response> {
    const url = new URL(pathname, this.apiUrl.endsWith("/") ? this.apiUrl : `${this.apiUrl}/`);
    const timeout = AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${this.nodeToken}` },
        signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
      });
    } catch (error) {
      const reason =
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
      throw new ControlPlaneError(`control plane unreachable at ${url.origin}: ${reason}`);
    }
    if (response.status >= 400) {
      const body = (await response.json().catch(() => ({}))) as { message?: unknown };
      const message = typeof body.message === "string" ? body.message.slice(0, 300) : response.statusText;
      throw new ControlPlaneError(`${url.pathname} answered ${response.status}: ${message}`, response.status);
    }
    return response;
  }

  /**
   * The peers to apply: with `since`, the changes since that version, waiting up to `waitSeconds`
   * for one; without, the full set. "unchanged" when nothing changed (HTTP 304). Every answer
   * and every peer is checked against the contract (agent/node-api.ts).
   */
  async fetchPeers(
    since: string | null,
    options: { waitSeconds?: number; signal?: AbortSignal } = {},
  ): Promise<CheckedAnswer | "unchanged"> {
    const query = new URLSearchParams();
    if (since !== null) query.set("since", since);
    if (since !== null && options.waitSeconds) query.set("wait", String(options.waitSeconds));
    const response = await this.call(`${NODE_PEERS_PATH}${query.size ? `?${query}` : ""}`, {
      timeoutMs: REQUEST_TIMEOUT_MS + (options.waitSeconds ?? 0) * 1000,
      signal: options.signal,
    });
    if (response.status === 304) return "unchanged";
    try {
      return checkPeerAnswer(await response.json());
    } catch (error) {
      if (error instanceof NodeApiError) throw new ControlPlaneError(`${NODE_PEERS_PATH}: ${error.message}`);
      throw new ControlPlaneError(`${NODE_PEERS_PATH} answered a body that is not JSON`);
    }
  }

  /** The public address this node's requests reach the control plane from (behind NAT: the NAT's). */
  async whoami(): Promise<string> {
    const response = await this.call(NODE_WHOAMI_PATH, {});
    const parsed = nodeWhoamiSchema.safeParse(await response.json().catch(() => null));
    const address = parsed.success ? canonicalIpAddress(parsed.data.address) : null;
    if (!address) throw new ControlPlaneError(`${NODE_WHOAMI_PATH} answered no address`);
    return address;
  }

  /** Sends a report; the answer lists the streaming services to check (none from an older control plane). */
  async postStatus(status: NodeStatus): Promise<{ streamingChecks?: StreamingCheck[] }> {
    const response = await this.call(NODE_STATUS_PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(status),
    });
    const answer = nodeStatusAnswerSchema.safeParse(await response.json().catch(() => ({})));
    return answer.success ? answer.data : {};
  }
}
