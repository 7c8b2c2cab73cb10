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
      // No controls, no format characters (bidi overrides such as U+202E would let a name show
      // as something else in the staff console and e-mails), no separators, no private use or
      // unpaired surrogates. The zero-width joiner alone stays: emoji sequences need it.
      .regex(
        /^(?:(?![\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}])[\s\S]|\u200d)*$/u,
        "A device name cannot contain control or formatting characters.",
      ),
  })
  .strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(renameDeviceSchema, (input, customer, { context }) =>
  renameAccountDevice(context.services, customer, input.deviceId, input.name),
);
