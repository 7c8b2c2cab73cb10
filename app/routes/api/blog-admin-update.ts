// POST /api/blog-admin/update {id, status} or {id, title, slug, content, author, status, published_at} → { post }
import { staffEndpoint } from "#server/http/staff.ts";
import { updatePost, updatePostInput } from "#server/domain/blog/admin.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(updatePostInput, async (input, staff, { context }) => {
  const post = await context.services.db.transaction(async (tx) => {
    const updated = await updatePost(tx, input);
    await recordStaffAction(tx, staff, {
      action:
        input.title === undefined
          ? `blog.${updated.status === "published" ? "publish" : "unpublish"}`
          : "blog.update",
      targetType: "post",
      targetId: updated.id,
      details: { title: updated.title, status: updated.status },
    });
    return updated;
  });
  context.services.logger.info({ postId: post.id, staff: staff.id }, "blog post updated");
  return { post };
});
