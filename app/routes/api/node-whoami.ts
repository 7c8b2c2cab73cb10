// GET /api/nodes/whoami → { address }: the address a node's request comes from, as this site sees
// it (TRUST_PROXY decides whose X-Forwarded-For counts), so `setup` on a node behind NAT can offer
// it as the exit address. Node token only.
import { canonicalIpAddress } from "#agent/node-api.ts";
import { authenticateNode } from "#server/domain/vpn/nodes.ts";
import { handleApi, methodNotAllowed } from "#server/http/api.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import type { Route } from "./+types/node-whoami";

export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    const server = await authenticateNode(context.services.db, request.headers.get("authorization"));
    if (!server) throw nodeUnauthorized();
    return { address: canonicalIpAddress(context.exactClientIp) ?? context.exactClientIp };
  });

export const action = ({ request, context, params }: Route.ActionArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["GET"]);
  });
