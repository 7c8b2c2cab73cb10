// POST /api/admin/devices/revoke {deviceId, reason} → { deviceId }: the peer leaves its node, the link answers 410.
import { revokeDeviceSchema, staffRevokeDevice } from "#server/domain/vpn/staff-devices.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(revokeDeviceSchema, (input, staff, { context }) =>
  staffRevokeDevice(context.services, staff, input),
);
