// POST /api/admin/dashboard {} → the dashboard's figures
import { dashboardFigures, dashboardQuerySchema } from "#server/domain/ops/dashboard.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(dashboardQuerySchema, (_query, _staff, { context }) =>
  dashboardFigures(context.services.db),
);
