// POST /api/blog-admin/create {title, slug, content, author, status, published_at} → { post }
import { staffEndpoint } from "#server/http/staff.ts";
import { createPost, createPostInput } from "#server/domain/blog/admin.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(createPostInput, async (input, staff, { context }) => {
  const post = await context.services.db.transaction(async (tx) => {
    const created = await createPost(tx, input);
    await recordStaffAction(tx, staff, {
      action: "blog.create",
      targetType: "post",
      targetId: created.id,
      details: { title: created.title, status: created.status },
    });
    return created;
  });
  context.services.logger.info({ postId: post.id, staff: staff.id }, "blog post created");
  return { post };
});
