// POST /api/blog-admin/delete {id, restore} → { post }: soft delete, or restore when `restore` is true.
import { staffEndpoint } from "#server/http/staff.ts";
import { deletePost, deletePostInput } from "#server/domain/blog/admin.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(deletePostInput, async (input, staff, { context }) => {
  const post = await context.services.db.transaction(async (tx) => {
    const changed = await deletePost(tx, input);
    await recordStaffAction(tx, staff, {
      action: input.restore ? "blog.restore" : "blog.delete",
      targetType: "post",
      targetId: changed.id,
      details: { title: changed.title },
    });
    return changed;
  });
  context.services.logger.info(
    { postId: post.id, staff: staff.id, restore: input.restore },
    input.restore ? "blog post restored" : "blog post deleted",
  );
  return { post };
});
