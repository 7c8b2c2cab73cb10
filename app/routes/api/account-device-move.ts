// POST /api/account/devices/move {deviceId, region} → { deviceId, server, location, downloadUrl }: same keys and link, a server in another region.
import { moveAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { moveDeviceSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(moveDeviceSchema, (input, customer, { context }) =>
  moveAccountDevice(context.services, customer, input.deviceId, input.region),
);
