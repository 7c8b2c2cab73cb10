// POST /api/blog-admin/delete {id, restore} → { post }: soft delete, or restore when `restore` is true.
import { deletePostInput } from "#server/domain/blog/admin.ts";
import { deletePostAsStaff } from "#server/domain/blog/staff-posts.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { staffEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(deletePostInput, (input, staff, { context }) =>
  deletePostAsStaff(context.services, staff, input),
);
