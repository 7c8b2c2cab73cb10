// POST /api/account/devices/revoke {deviceId} → { deviceId }: the peer leaves its node, the slot is free, the link answers 410.
import { z } from "zod";
import { revokeAccountDevice } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

const revokeDeviceSchema = z.object({ deviceId: z.uuid() }).strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(revokeDeviceSchema, (input, customer, { context }) =>
  revokeAccountDevice(context.services, customer, input.deviceId),
);
