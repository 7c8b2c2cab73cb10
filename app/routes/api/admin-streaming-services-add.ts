// POST /api/admin/streaming-services/add {name, url, expectStatus?, bodyContains?, bodyLacks?, required?, reason} → { service }
import {
  addStreamingServiceAsStaff,
  addStreamingServiceSchema,
} from "#server/domain/vpn/streaming-checks.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(addStreamingServiceSchema, (input, staff, { context }) =>
  addStreamingServiceAsStaff(context.services.db, staff, input),
);
