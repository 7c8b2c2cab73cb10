import { data, redirect } from "react-router";
import { PostEditor, type EditorDraft } from "#app/components/admin/post-editor.tsx";
import type { FormRefusal } from "#server/http/staff-form.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { staffAccess } from "#server/domain/auth/staff.ts";
import { findPost } from "#server/domain/blog/admin.ts";
import { postEditorAction } from "./admin-blog-editor-actions.server.ts";
import type { Route } from "./+types/admin-blog-editor";

export const meta: Route.MetaFunction = ({ matches, params }) => [
  ...pageMeta(
    {
      title: params.id ? "Edit Post" : "New Post",
      description: "Write a NaijaLink blog post.",
      path: params.id ? `/admin/blog/edit/${params.id}` : "/admin/blog/new",
    },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

/**
 * Anyone but staff is sent home without a word (docs/product.md §9.2), staff who must enrol two-factor first
 * to the enrolment on /admin/blog; an unknown post is a 404.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const access = await staffAccess(request, context.services);
  if (access.kind === "needs-two-factor") throw redirect("/admin/blog");
  if (access.kind !== "staff") throw redirect("/");
  if (!params.id) return { post: null };
  const post = await findPost(context.services.db, params.id);
  if (!post) throw data("Post not found", { status: 404 });
  return { post };
}

/** Saves the post: created, or updated (the form says which and, for an update, the post's id). */
export const action = postEditorAction;

export default function AdminBlogEditor({ loaderData, actionData }: Route.ComponentProps) {
  // Keyed by post so moving between posts starts a fresh form. `pageAnswer`: a save the browser
  // posted itself (no JavaScript) and the server refused: its message, and the form as it was.
  const pageAnswer =
    actionData && actionData.ok === false && "draft" in actionData
      ? (actionData as FormRefusal & { draft: EditorDraft })
      : undefined;
  return <PostEditor key={loaderData.post?.id ?? "new"} post={loaderData.post} pageAnswer={pageAnswer} />;
}
