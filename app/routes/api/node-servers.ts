import { z } from "zod";
import { handleApi, methodNotAllowed, parseInput, readJsonBody } from "#server/http/api.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { newServerFieldsSchema, runServerCommand } from "#server/domain/vpn/server-admin.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import type { Route } from "./+types/node-servers";

// Used by `npm run vpn` on the same machine: it authenticates with the token the server writes
// into DATA_DIR/vpn-admin.json at start (see server/domain/vpn/admin-token.ts).
const serverRef = z.string().min(1).max(63);
const commandSchema = z.discriminatedUnion("command", [
  newServerFieldsSchema.extend({ command: z.literal("add-server") }),
  z.object({ command: z.literal("rotate-node-token"), name: z.string().min(1).max(63) }),
  z.object({ command: z.literal("list-servers") }),
  z.object({ command: z.literal("drain-server"), server: serverRef }),
  z.object({ command: z.literal("disable-server"), server: serverRef }),
  z.object({ command: z.literal("enable-server"), server: serverRef }),
  z.object({ command: z.literal("set-endpoint"), server: serverRef, endpoint: z.string().min(3).max(300) }),
  z.object({
    command: z.literal("set-exit"),
    server: serverRef,
    // Checked and made canonical by the domain (exit-addresses.ts), which names a bad one.
    addresses: z.array(z.string().max(64)).max(64),
  }),
  z.object({ command: z.literal("remove-server"), server: serverRef }),
  z.object({ command: z.literal("move-devices"), server: serverRef, to: serverRef.optional() }),
  z.object({ command: z.literal("revoke-devices"), server: serverRef }),
]);

export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const { services } = context;
    if (!(await isAdminAuthorization(services.config.DATA_DIR, request.headers.get("authorization")))) {
      throw nodeUnauthorized("Send the token from DATA_DIR/vpn-admin.json as Authorization: Bearer <token>.");
    }
    const input = parseInput(commandSchema, await readJsonBody(request));
    const result = await runServerCommand(services.db, services, input);
    if (input.command !== "list-servers") {
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
