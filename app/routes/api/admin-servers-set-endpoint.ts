// POST /api/admin/servers/set-endpoint {serverId, endpoint, reason} → { server }
import { setEndpointAsStaff, setEndpointSchema } from "#server/domain/vpn/server-staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(setEndpointSchema, (input, staff, { context }) =>
  setEndpointAsStaff(context.services.db, staff, input),
);
