// POST /api/blog-admin/update {id, status} or {id, title, slug, content, author, status, published_at} → { post }
import { staffEndpoint } from "#server/http/staff.ts";
import { updatePost, updatePostInput } from "#server/domain/blog/admin.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(updatePostInput, async (input, staff, { context }) => {
  const post = await updatePost(context.services.db, input);
  context.services.logger.info({ postId: post.id, staff: staff.id }, "blog post updated");
  return { post };
});
