// POST /api/account/devices/rename {deviceId, name} → { deviceId, name }.
import { renameAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { renameDeviceSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(renameDeviceSchema, (input, customer, { context }) =>
  renameAccountDevice(context.services, customer, input.deviceId, input.name),
);
