import { regionLabel } from "#core/locations.ts";
import { handleApi, methodNotAllowed } from "#server/http/api.ts";
import { checkConnection } from "#server/domain/vpn/exit-addresses.ts";
import type { Route } from "./+types/check";

/** /check as JSON: whether the caller comes through one of our VPN servers (never cached). */
export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    if (request.method !== "GET" && request.method !== "HEAD") throw methodNotAllowed(["GET"]);
    const { address, server } = await checkConnection(context.services.db, context.exactClientIp);
    return {
      connected: server !== null,
      address,
      server: server && { ...server, location: regionLabel(server.region) },
    };
  });

export const action = ({ request, context, params }: Route.ActionArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["GET"]);
  });
