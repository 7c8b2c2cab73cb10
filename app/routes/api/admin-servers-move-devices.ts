// POST /api/admin/servers/move-devices {serverId, reason} → { moved, remaining, to }: every live
// device of a draining or disabled server to others; each owner gets the new-config e-mail.
import { moveDevicesAsStaff, serverActionSchema } from "#server/domain/vpn/server-staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(serverActionSchema, (input, staff, { context }) =>
  moveDevicesAsStaff(context.services.db, context.services, staff, input),
);
