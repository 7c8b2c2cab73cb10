import type { DesiredPeer } from "./peers.ts";

export interface PeerSet {
  version: string;
  server: { name: string; listenPort: number; ipv4: string; ipv6: string };
  peers: DesiredPeer[];
}

export interface PeerStatus {
  publicKey: string;
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
}

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    public readonly status?: number,
  ) {
    super(message);
  }
}

/** The control plane's node API (`/api/nodes/*`), authenticated with the node token. */
export class ControlPlane {
  constructor(
    private readonly apiUrl: string,
    private readonly nodeToken: string,
    private readonly timeoutMs = 15_000,
  ) {}

  private async call(pathname: string, init: RequestInit): Promise<Response> {
    const url = new URL(pathname, this.apiUrl.endsWith("/") ? this.apiUrl : `${this.apiUrl}/`);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${this.nodeToken}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const reason =
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
      throw new ControlPlaneError(`control plane unreachable at ${url.origin}: ${reason}`);
    }
    if (response.status >= 400) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new ControlPlaneError(
        `${url.pathname} answered ${response.status}: ${body.message ?? response.statusText}`,
        response.status,
      );
    }
    return response;
  }

  /** The desired peers, or "unchanged" when `knownVersion` is still current (HTTP 304). */
  async fetchPeers(knownVersion: string | null): Promise<PeerSet | "unchanged"> {
    const response = await this.call("api/nodes/peers", {
      headers: knownVersion ? { "if-none-match": `"${knownVersion}"` } : {},
    });
    if (response.status === 304) return "unchanged";
    const body = (await response.json()) as PeerSet;
    if (!body || typeof body.version !== "string" || !Array.isArray(body.peers))
      throw new ControlPlaneError("api/nodes/peers answered an unexpected body");
    return body;
  }

  async postStatus(status: { publicKey: string; appliedVersion: string | null; peers: PeerStatus[] }) {
    await this.call("api/nodes/status", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(status),
    });
  }
}
