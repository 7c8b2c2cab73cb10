// POST /api/admin/search {q, page?} → { results, total, page, pageSize, pages }
import { findOrders, orderSearchSchema } from "#server/domain/ops/order-search.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(orderSearchSchema, (query, _staff, { context }) =>
  findOrders(context.services.db, query),
);
