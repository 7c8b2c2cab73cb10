// POST /api/account/devices/move {deviceId, region} → { deviceId, server, location, downloadUrl }: same keys and link, a server in another region.
import { z } from "zod";
import { moveAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

const moveDeviceSchema = z
  .object({
    deviceId: z.uuid(),
    // Any text: a region without a server with room answers 409, as one that just filled up.
    region: z.string().min(1, "Choose a location.").max(100, "Choose one of the locations offered."),
  })
  .strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(moveDeviceSchema, (input, customer, { context }) =>
  moveAccountDevice(context.services, customer, input.deviceId, input.region),
);
