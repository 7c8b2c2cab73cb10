// POST /api/blog-admin/update {id, status} or {id, title, slug, content, author, status, published_at} → { post }
import { updatePostInput } from "#server/domain/blog/admin.ts";
import { updatePostAsStaff } from "#server/domain/blog/staff-posts.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { staffEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(updatePostInput, (input, staff, { context }) =>
  updatePostAsStaff(context.services, staff, input),
);
