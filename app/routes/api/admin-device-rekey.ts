// POST /api/admin/devices/rekey {deviceId, reason} → { deviceId }: new keys and link, the new config e-mailed.
import { rekeyDeviceSchema, staffRekeyDevice } from "#server/domain/vpn/staff-devices.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(rekeyDeviceSchema, (input, staff, { context }) =>
  staffRekeyDevice(context.services, staff, input),
);
