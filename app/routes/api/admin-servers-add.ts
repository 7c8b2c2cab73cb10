// POST /api/admin/servers/add {name, endpoint, ipv4, ipv6, region?, publicKey?, dns?, reason} → { server, nodeToken }
// The node token is in this answer only: it is never logged and cannot be shown again.
import { addServerAsStaff, addServerSchema } from "#server/domain/vpn/server-staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(addServerSchema, async (input, staff, { context }) => {
  const { services } = context;
  const added = await addServerAsStaff(services.db, services.config, staff, input);
  services.logger.info({ vpnServer: added.server.name, staff: staff.id }, "VPN server added by staff");
  return added;
});
