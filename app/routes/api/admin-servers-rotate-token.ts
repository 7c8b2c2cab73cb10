// POST /api/admin/servers/rotate-token {serverId, reason} → { server, nodeToken }: the old token stops working.
// The new token is in this answer only: it is never logged and cannot be shown again.
import { rotateNodeTokenAsStaff, serverActionSchema } from "#server/domain/vpn/server-staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(serverActionSchema, async (input, staff, { context }) => {
  const { services } = context;
  const rotated = await rotateNodeTokenAsStaff(services.db, staff, input);
  services.logger.info(
    { vpnServer: rotated.server.name, staff: staff.id },
    "VPN node token rotated by staff",
  );
  return rotated;
});
