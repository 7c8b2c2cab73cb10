// POST /api/account/devices/add {subscriptionId} → { deviceId, slot }: the subscription's next device.
import { z } from "zod";
import { addAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

const addDeviceSchema = z.object({ subscriptionId: z.uuid() }).strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(addDeviceSchema, (input, customer, { context }) =>
  addAccountDevice(context.services, customer, input.subscriptionId),
);
