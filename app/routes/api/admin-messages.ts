// POST /api/admin/messages {status?, page?} → { messages, page, pageCount, total }
import { listMessages, messageListQuerySchema } from "#server/domain/contact/messages.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(messageListQuerySchema, (query, _staff, { context }) =>
  listMessages(context.services.db, query),
);
