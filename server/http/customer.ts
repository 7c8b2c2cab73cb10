import type { z, ZodType } from "zod";
import { customerOf, type Customer } from "#server/domain/account/customer-auth.ts";
import type { AppServices } from "#server/services.ts";
import { handleApi, methodNotAllowed, parseInput, readJsonBody, unauthorized, type ApiCall } from "./api.ts";

/** The signed-in customer (customer session cookie only), or a 401 `ApiError`. */
export async function requireCustomer(
  request: Request,
  services: Pick<AppServices, "customerAuth">,
): Promise<Customer> {
  const customer = await customerOf(services.customerAuth, request);
  if (!customer) throw unauthorized("Please sign in to your account first.");
  return customer;
}

/**
 * A POST `/api/account/*` endpoint: the customer check runs before the body is read; the handler
 * gets the customer and checks every id it is given against them.
 */
export function customerEndpoint<S extends ZodType>(
  schema: S,
  handler: (input: z.infer<S>, customer: Customer, call: ApiCall) => Promise<unknown>,
) {
  return (call: ApiCall) =>
    handleApi(call, async () => {
      if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
      const customer = await requireCustomer(call.request, call.context.services);
      const input = parseInput(schema, await readJsonBody(call.request)) as z.infer<S>;
      return handler(input, customer, call);
    });
}
