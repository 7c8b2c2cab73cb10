import { jsonEndpoint, postOnlyLoader } from "#server/http/api.ts";
import { contactMessageSchema, submitContactMessage } from "#server/domain/contact/contact.ts";
import type { Route } from "./+types/send-contact-email";

export const loader = postOnlyLoader;

const endpoint = jsonEndpoint(
  contactMessageSchema,
  async (input, { context }) => {
    await submitContactMessage(context.services, input, context.clientIp);
    return { success: true };
  },
  { bodyLimitBytes: 32 * 1024 },
);

export const action = (args: Route.ActionArgs) => endpoint(args);
