// POST /api/blog-admin/create {title, slug, content, author, status, published_at} → { post }
import { staffEndpoint } from "#server/http/staff.ts";
import { createPost, createPostInput } from "#server/domain/blog/admin.ts";
import { postOnlyLoader } from "#server/http/api.ts";

export const loader = postOnlyLoader;
export const action = staffEndpoint(createPostInput, async (input, staff, { context }) => {
  const post = await createPost(context.services.db, input);
  context.services.logger.info({ postId: post.id, staff: staff.id }, "blog post created");
  return { post };
});
