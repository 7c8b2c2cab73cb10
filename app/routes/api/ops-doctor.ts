// POST /api/ops/doctor {} → { checks }: the database's checks of `npm run doctor`,
// run by the server that holds DATA_DIR. Authenticated like `npm run vpn`: the token the server
// wrote into DATA_DIR/vpn-admin.json.
import { z } from "zod";
import { storeChecks } from "#server/domain/ops/doctor/store.ts";
import { isAdminAuthorization } from "#server/domain/vpn/admin-token.ts";
import { handleApi, methodNotAllowed, parseInput, postOnlyLoader, readJsonBody } from "#server/http/api.ts";
import { nodeUnauthorized } from "#server/http/node-auth.ts";
import type { Route } from "./+types/ops-doctor";

const doctorSchema = z.object({}).strict();

export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const { services } = context;
    if (!(await isAdminAuthorization(services.config.DATA_DIR, request.headers.get("authorization"))))
      throw nodeUnauthorized("Send the token from DATA_DIR/vpn-admin.json as Authorization: Bearer <token>.");
    parseInput(doctorSchema, await readJsonBody(request));
    return {
      checks: await storeChecks(services.db, services.dbKind, services.config, new Date(), {
        reconcile: true,
      }),
    };
  });
}

export const loader = postOnlyLoader;
