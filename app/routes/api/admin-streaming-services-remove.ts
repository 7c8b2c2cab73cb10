// POST /api/admin/streaming-services/remove {serviceId, reason} → { service }
import {
  removeStreamingServiceAsStaff,
  removeStreamingServiceSchema,
} from "#server/domain/vpn/streaming-checks.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(removeStreamingServiceSchema, (input, staff, { context }) =>
  removeStreamingServiceAsStaff(context.services.db, staff, input),
);
