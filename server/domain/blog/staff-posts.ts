// A staff member's change to a post, audited: what /api/blog-admin/{create,update,delete} and the
// /admin/blog pages' actions both do.
import type { z } from "zod";
import type { SignedInStaff } from "#server/domain/auth/staff.ts";
import { recordStaffAction } from "#server/domain/ops/audit.ts";
import type { AppServices } from "#server/services.ts";
import {
  createPost,
  deletePost,
  updatePost,
  type createPostInput,
  type deletePostInput,
  type updatePostInput,
} from "./admin.ts";

type Services = Pick<AppServices, "db" | "logger">;
type Post = Awaited<ReturnType<typeof createPost>>;
type Executor = Parameters<Parameters<Services["db"]["transaction"]>[0]>[0];

/** Runs `change` and records it in the staff audit log in one transaction, then logs `logged`. */
async function auditedPostChange(
  services: Services,
  staff: SignedInStaff,
  change: (tx: Executor) => Promise<Post>,
  audit: (post: Post) => { action: string; details: Record<string, unknown> },
  logged: { message: string; fields?: Record<string, unknown> },
) {
  const post = await services.db.transaction(async (tx) => {
    const changed = await change(tx);
    await recordStaffAction(tx, staff, { targetType: "post", targetId: changed.id, ...audit(changed) });
    return changed;
  });
  services.logger.info({ postId: post.id, staff: staff.id, ...logged.fields }, logged.message);
  return { post };
}

export function createPostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof createPostInput>,
) {
  return auditedPostChange(
    services,
    staff,
    (tx) => createPost(tx, input),
    (post) => ({ action: "blog.create", details: { title: post.title, status: post.status } }),
    { message: "blog post created" },
  );
}

export function updatePostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof updatePostInput>,
) {
  return auditedPostChange(
    services,
    staff,
    (tx) => updatePost(tx, input),
    (post) => ({
      action:
        input.title === undefined
          ? `blog.${post.status === "published" ? "publish" : "unpublish"}`
          : "blog.update",
      details: { title: post.title, status: post.status },
    }),
    { message: "blog post updated" },
  );
}

/** Soft delete, or restore when `restore` is true. */
export function deletePostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof deletePostInput>,
) {
  return auditedPostChange(
    services,
    staff,
    (tx) => deletePost(tx, input),
    (post) => ({ action: input.restore ? "blog.restore" : "blog.delete", details: { title: post.title } }),
    {
      message: input.restore ? "blog post restored" : "blog post deleted",
      fields: { restore: input.restore },
    },
  );
}
