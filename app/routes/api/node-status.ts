import { nodeStatusSchema } from "#agent/node-api.ts";
import { handleApi, methodNotAllowed, parseInput, readJsonBody } from "#server/http/api.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import { authenticateNode, recordNodeStatus } from "#server/domain/vpn/nodes.ts";
import { streamingChecksForNode } from "#server/domain/vpn/streaming-checks.ts";
import type { Route } from "./+types/node-status";

/** A node agent's report: its public key, the applied peer-set version, peer handshakes and transfer counters. */
export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const { services } = context;
    const server = await authenticateNode(services.db, request.headers.get("authorization"));
    if (!server) throw nodeUnauthorized();
    const status = parseInput(nodeStatusSchema, await readJsonBody(request, 16 * 1024 * 1024));
    const result = await recordNodeStatus(services.db, server, status);
    if (result.publicKeyChanged) {
      services.logger.warn(
        { vpnServer: server.name, hadKey: server.publicKey !== null },
        "VPN node registered a new public key; configs downloaded before carry the old one",
      );
    }
    // The services its agent checks from the exit (decision 133), with every answer.
    const streamingChecks = await streamingChecksForNode(services.db);
    return { ok: true, handshakesRecorded: result.handshakesRecorded, streamingChecks };
  });
}

export const loader = ({ request, context, params }: Route.LoaderArgs) =>
  handleApi({ request, context, params }, async () => {
    throw methodNotAllowed(["POST"]);
  });
