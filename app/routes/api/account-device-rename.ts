// POST /api/account/devices/rename {deviceId, name} → { deviceId, name }.
import { z } from "zod";
import { renameAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

const renameDeviceSchema = z
  .object({
    deviceId: z.uuid(),
    name: z
      .string()
      .trim()
      .min(1, "Give the device a name.")
      .max(40, "A device name has at most 40 characters.")
      .regex(/^[^\p{Cc}]*$/u, "A device name cannot contain control characters."),
  })
  .strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(renameDeviceSchema, (input, customer, { context }) =>
  renameAccountDevice(context.services, customer, input.deviceId, input.name),
);
