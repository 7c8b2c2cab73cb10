// POST /api/admin/messages/status {id, status: new|answered|closed, reason} → { message: { id, status } }
import { changeMessageStatus, messageStatusChangeSchema } from "#server/domain/contact/messages.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(messageStatusChangeSchema, async (change, staff, { context }) => ({
  message: await changeMessageStatus(context.services.db, staff, change),
}));
