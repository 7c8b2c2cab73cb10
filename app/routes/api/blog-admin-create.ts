// POST /api/blog-admin/create {title, slug, content, author, status, published_at} → { post }
import { createPostInput } from "#server/domain/blog/admin.ts";
import { createPostAsStaff } from "#server/domain/blog/staff-posts.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { staffEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(createPostInput, (input, staff, { context }) =>
  createPostAsStaff(context.services, staff, input),
);
