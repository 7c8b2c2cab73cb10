// POST /api/account/subscriptions {} → { subscriptions }: the signed-in customer's subscriptions and devices.
import { z } from "zod";
import { listAccount } from "#server/domain/account/account.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

const listSchema = z.object({}).strict();

export const loader = postOnlyLoader;
export const action = customerEndpoint(listSchema, async (_input, customer, { context }) => ({
  subscriptions: await listAccount(context.services, customer),
}));
