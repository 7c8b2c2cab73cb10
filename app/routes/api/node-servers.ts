import { handleApi, methodNotAllowed, parseInput, readJsonBody } from "#server/http/api.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { runServerCommand, serverCommandSchema } from "#server/domain/vpn/server-admin.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import type { Route } from "./+types/node-servers";

// Used by `npm run vpn` on the same machine: it authenticates with the token the server writes
// into DATA_DIR/vpn-admin.json at start (see server/domain/vpn/admin-token.ts).
export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const { services } = context;
    if (!(await isAdminAuthorization(services.config.DATA_DIR, request.headers.get("authorization")))) {
      throw nodeUnauthorized("Send the token from DATA_DIR/vpn-admin.json as Authorization: Bearer <token>.");
    }
    const input = parseInput(serverCommandSchema, await readJsonBody(request));
    const result = await runServerCommand(services.db, services, input);
    if (input.command === "add-service" || input.command === "remove-service") {
      const service = input.command === "add-service" ? input.name : input.service;
      services.logger.info({ command: input.command, service }, "streaming service command done");
    } else if (input.command !== "list-servers" && input.command !== "list-services") {
      const vpnServer = "server" in input ? input.server : input.name;
      services.logger.info({ command: input.command, vpnServer }, "VPN server command done");
    }
    return result;
  });
}

export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["POST"]);
  });
