import { z } from "zod";
import {
  badRequest,
  handleApi,
  methodNotAllowed,
  notFound,
  parseInput,
  readJsonBody,
} from "#server/http/api.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import {
  addVpnServer,
  InvalidVpnServer,
  listVpnServers,
  rotateNodeToken,
} from "#server/domain/vpn/servers.ts";
import type { Route } from "./+types/node-servers";

// Used by `npm run vpn` on the same machine: it authenticates with the token the server writes
// into DATA_DIR/vpn-admin.json at start (see server/domain/vpn/admin-token.ts).
const commandSchema = z.discriminatedUnion("command", [
  z.object({
    command: z.literal("add-server"),
    name: z.string().min(1).max(63),
    region: z.string().min(1).max(63).optional(),
    endpoint: z.string().min(3).max(300),
    ipv4: z.string().min(9).max(18),
    ipv6: z.string().min(3).max(43),
    publicKey: z.string().max(44).optional(),
    dns: z.string().min(1).max(300).optional(),
  }),
  z.object({ command: z.literal("rotate-node-token"), name: z.string().min(1).max(63) }),
  z.object({ command: z.literal("list-servers") }),
]);

export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const { services } = context;
    if (!(await isAdminAuthorization(services.config.DATA_DIR, request.headers.get("authorization")))) {
      throw nodeUnauthorized("Send the token from DATA_DIR/vpn-admin.json as Authorization: Bearer <token>.");
    }
    const input = parseInput(commandSchema, await readJsonBody(request));
    if (input.command === "list-servers") return { servers: await listVpnServers(services.db) };
    if (input.command === "rotate-node-token") {
      const rotated = await rotateNodeToken(services.db, input.name);
      if (!rotated) throw notFound(`There is no VPN server named ${input.name}.`);
      services.logger.info({ vpnServer: input.name }, "VPN node token rotated");
      return { name: rotated.server.name, nodeToken: rotated.nodeToken };
    }
    try {
      const { server, nodeToken } = await addVpnServer(services.db, {
        name: input.name,
        region: input.region,
        endpoint: input.endpoint,
        publicKey: input.publicKey ?? null,
        ipv4Cidr: input.ipv4,
        ipv6Cidr: input.ipv6,
        dns: input.dns ?? services.config.VPN_DNS,
      });
      services.logger.info({ vpnServer: server.name }, "VPN server added");
      return { name: server.name, endpoint: server.endpoint, nodeToken };
    } catch (error) {
      if (error instanceof InvalidVpnServer) throw badRequest(error.message);
      throw error;
    }
  });
}

export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["POST"]);
  });
