import { errorResponse, handleApi, methodNotAllowed } from "#server/http/api.ts";
import { authenticateNode, desiredPeerSet } from "#server/domain/vpn/nodes.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import type { Route } from "./+types/node-peers";

/** The peer set a VPN server must carry; `If-None-Match` with the last version answers 304 when unchanged. */
export function loader({ request, context, params }: Route.LoaderArgs) {
  return handleApi({ request, context, params }, async () => {
    const { services } = context;
    const server = await authenticateNode(services.db, request.headers.get("authorization"));
    if (!server) throw nodeUnauthorized();
    const knownVersion = request.headers.get("if-none-match")?.replace(/^W\//, "").replace(/"/g, "") ?? null;
    const set = await desiredPeerSet(services.db, services.sealer, server, { knownVersion });
    const headers = { ETag: `"${set.version}"`, "Cache-Control": "no-store" };
    if ("unchanged" in set) return new Response(null, { status: 304, headers });
    return Response.json(set, { headers });
  });
}

export const action = () => errorResponse(methodNotAllowed(["GET"]));
