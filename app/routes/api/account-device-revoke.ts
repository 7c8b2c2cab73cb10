// POST /api/account/devices/revoke {deviceId} → { deviceId }: the peer leaves its node, the slot is free, the link answers 410.
import { revokeAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { revokeDeviceSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(revokeDeviceSchema, (input, customer, { context }) =>
  revokeAccountDevice(context.services, customer, input.deviceId),
);
