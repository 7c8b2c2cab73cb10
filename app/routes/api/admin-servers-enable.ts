// POST /api/admin/servers/enable {serverId, reason} → { server }: the server takes new devices and carries its peers again.
import { serverActionSchema, setStatusAsStaff } from "#server/domain/vpn/server-staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(serverActionSchema, (input, staff, { context }) =>
  setStatusAsStaff(context.services.db, context.services.config, staff, input, "active"),
);
