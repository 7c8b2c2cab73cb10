// POST /api/blog-admin/delete {id, restore} → { post }: soft delete, or restore when `restore` is true.
import { staffEndpoint } from "#server/http/staff.ts";
import { deletePost, deletePostInput } from "#server/domain/blog/admin.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(deletePostInput, async (input, staff, { context }) => {
  const post = await deletePost(context.services.db, input);
  context.services.logger.info(
    { postId: post.id, staff: staff.id, restore: input.restore },
    input.restore ? "blog post restored" : "blog post deleted",
  );
  return { post };
});
