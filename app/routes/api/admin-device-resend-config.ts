// POST /api/admin/devices/resend-config {deviceId, reason} → { deviceId }: the config e-mail again, as a new message.
import { resendConfigSchema, staffResendConfig } from "#server/domain/vpn/staff-devices.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(resendConfigSchema, (input, staff, { context }) =>
  staffResendConfig(context.services, staff, input),
);
