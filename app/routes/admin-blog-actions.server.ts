// The /admin/blog page's posts: publish/unpublish and delete/restore (each with its
// /api/blog-admin/* schema and domain call), signing out through better-auth's handler, and the
// two-factor enrolment (admin-two-factor-actions.server.ts).
import { redirect } from "react-router";
import { deletePostInput, updatePostInput } from "#server/domain/blog/admin.ts";
import { deletePostAsStaff, updatePostAsStaff } from "#server/domain/blog/staff-posts.ts";
import { forbidden } from "#server/http/api.ts";
import {
  authPost,
  filledFields,
  staffIntent,
  staffIntentAction,
  withAuthCookies,
} from "#server/http/staff-form.ts";
import { isTwoFactorIntent, twoFactorAction } from "./admin-two-factor-actions.server.ts";
import type { Route } from "./+types/admin-blog";

/** Ends the session (anyone may end their own), its cookies with it, and goes to the login page. */
async function signOut(args: Route.ActionArgs) {
  const answer = await authPost(args, "sign-out", {});
  return redirect("/admin/login", { headers: withAuthCookies(answer.cookies) });
}

export async function blogListAction(args: Route.ActionArgs) {
  const { request, context } = args;
  if (request.method === "POST") {
    const form = await request
      .clone()
      .formData()
      .catch(() => null);
    if (form?.get("intent") === "sign-out") {
      const site = request.headers.get("sec-fetch-site");
      if (site !== null && site !== "same-origin")
        throw forbidden("Send this form from the site's own page.");
      return signOut(args);
    }
    if (isTwoFactorIntent(form?.get("intent"))) return twoFactorAction(args);
  }
  const { services } = context;
  return staffIntentAction(args, "editor", {
    publish: staffIntent({
      schema: updatePostInput,
      run: (input, staff) => updatePostAsStaff(services, staff, input),
      done: ({ post }) => (post.status === "published" ? "Post published" : "Post unpublished"),
      toastTitle: "Success",
    }),
    delete: staffIntent({
      schema: deletePostInput,
      fromForm: (form) => {
        const fields = filledFields(form);
        return { ...fields, restore: fields.restore === "true" };
      },
      run: (input, staff) => deletePostAsStaff(services, staff, input),
      done: ({ post }) => (post.deleted_at ? "Post deleted" : "Post restored"),
      toastTitle: "Success",
    }),
  });
}
