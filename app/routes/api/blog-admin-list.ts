// POST /api/blog-admin/list → { posts }: every post, drafts and deleted ones included.
import { requireStaff } from "#server/http/staff.ts";
import { listPosts } from "#server/domain/blog/admin.ts";
import { handleApi, methodNotAllowed } from "#server/http/api.ts";
import type { Route } from "./+types/blog-admin-list";

// The blog admin's list call sends no body (or `{}`), so none is required; GET reads the same list.
async function list(args: Route.ActionArgs | Route.LoaderArgs) {
  return handleApi(args, async () => {
    if (!["GET", "POST"].includes(args.request.method)) throw methodNotAllowed(["GET", "POST"]);
    await requireStaff(args.request, args.context.services);
    return { posts: await listPosts(args.context.services.db) };
  });
}

export const loader = list;
export const action = list;
