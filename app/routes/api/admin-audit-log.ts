// POST /api/admin/audit-log {action?, staffEmail?, targetType?, targetId?, before?, limit?} → { entries, nextBefore }
import { auditLogQuerySchema, listAuditLog } from "#server/domain/ops/audit.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(auditLogQuerySchema, (query, _staff, { context }) =>
  listAuditLog(context.services.db, query),
);
