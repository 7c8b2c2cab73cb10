import { peersQuerySchema } from "#agent/node-api.ts";
import { errorResponse, handleApi, methodNotAllowed, parseInput } from "#server/http/api.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import { pollPeers } from "#server/domain/vpn/node-peers.ts";
import { authenticateNode } from "#server/domain/vpn/nodes.ts";
import type { Route } from "./+types/node-peers";

/**
 * The peers a VPN server must carry (contract: agent/node-api.ts). `?since=<version>&wait=<s>`
 * answers the changes since that version, held until there is one; without `since` the full set,
 * 304 when `If-None-Match` names the current version.
 */
export function loader({ request, context, params }: Route.LoaderArgs) {
  return handleApi({ request, context, params }, async () => {
    const { services } = context;
    const server = await authenticateNode(services.db, request.headers.get("authorization"));
    if (!server) throw nodeUnauthorized();
    const query = parseInput(peersQuerySchema, Object.fromEntries(new URL(request.url).searchParams));
    const knownVersion = request.headers.get("if-none-match")?.replace(/^W\//, "").replace(/"/g, "") ?? null;
    const answer = await pollPeers(
      {
        db: services.db,
        sealer: services.sealer,
        peerChanges: services.peerChanges,
        dnsCheckZone: services.config.VPN_DNS_CHECK_ZONE,
      },
      server,
      { since: query.since, waitSeconds: query.wait, knownVersion, signal: request.signal },
    );
    const headers = { ETag: `"${answer.version}"`, "Cache-Control": "no-store" };
    if ("unchanged" in answer) return new Response(null, { status: 304, headers });
    return Response.json(answer, { headers });
  });
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
