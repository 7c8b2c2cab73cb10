// POST /api/account/devices/add {subscriptionId} → { deviceId, slot }: the subscription's next device.
import { addAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { addDeviceSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(addDeviceSchema, (input, customer, { context }) =>
  addAccountDevice(context.services, customer, input.subscriptionId),
);
