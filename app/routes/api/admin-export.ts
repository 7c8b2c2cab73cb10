// POST /api/admin/export (form: kind, from, to) → text/csv, streamed
import { exportCsv, exportFileName, exportRequestSchema, recordExport } from "#server/domain/ops/exports.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminFormEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminFormEndpoint(exportRequestSchema, async (request, staff, { context }) => {
  const { db, logger } = context.services;
  await recordExport(db, staff, request);
  logger.info({ kind: request.kind, staff: staff.id }, "CSV export started");
  return new Response(exportCsv(db, request), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(request)}"`,
      "Cache-Control": "no-store",
    },
  });
});
