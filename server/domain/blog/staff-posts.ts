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

export async function createPostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof createPostInput>,
) {
  const post = await services.db.transaction(async (tx) => {
    const created = await createPost(tx, input);
    await recordStaffAction(tx, staff, {
      action: "blog.create",
      targetType: "post",
      targetId: created.id,
      details: { title: created.title, status: created.status },
    });
    return created;
  });
  services.logger.info({ postId: post.id, staff: staff.id }, "blog post created");
  return { post };
}

export async function updatePostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof updatePostInput>,
) {
  const post = await services.db.transaction(async (tx) => {
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
  services.logger.info({ postId: post.id, staff: staff.id }, "blog post updated");
  return { post };
}

/** Soft delete, or restore when `restore` is true. */
export async function deletePostAsStaff(
  services: Services,
  staff: SignedInStaff,
  input: z.infer<typeof deletePostInput>,
) {
  const post = await services.db.transaction(async (tx) => {
    const changed = await deletePost(tx, input);
    await recordStaffAction(tx, staff, {
      action: input.restore ? "blog.restore" : "blog.delete",
      targetType: "post",
      targetId: changed.id,
      details: { title: changed.title },
    });
    return changed;
  });
  services.logger.info(
    { postId: post.id, staff: staff.id, restore: input.restore },
    input.restore ? "blog post restored" : "blog post deleted",
  );
  return { post };
}
