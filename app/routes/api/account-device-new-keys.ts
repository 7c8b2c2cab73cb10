// POST /api/account/devices/new-keys {deviceId} → { deviceId, downloadUrl }: same slot and address, new keys and link.
import { replaceAccountDeviceKeys } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { newKeysSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(newKeysSchema, (input, customer, { context }) =>
  replaceAccountDeviceKeys(context.services, customer, input.deviceId),
);
