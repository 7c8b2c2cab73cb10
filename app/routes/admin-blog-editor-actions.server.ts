// The post editor's saves: a new post (as /api/blog-admin/create) or changes to one (as
// /api/blog-admin/update), the same schemas and audited domain calls; a save that worked goes
// back to the list with the list's toast (docs/product.md §9.3), a refused one stays with its message (decision 108).
import { data } from "react-router";
import type { EditorDraft } from "#app/components/admin/post-editor.tsx";
import { createPostInput, updatePostInput } from "#server/domain/blog/admin.ts";
import { createPostAsStaff, updatePostAsStaff } from "#server/domain/blog/staff-posts.ts";
import { staffIntent, staffIntentAction, type FormRefusal } from "#server/http/staff-form.ts";
import type { Route } from "./+types/admin-blog-editor";

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
};

/** The editor's fields as the JSON body carried them; the date input's day becomes `published_at`. */
function postFields(form: FormData) {
  const day = text(form, "published_date") ?? "";
  const kept = text(form, "published_at_before");
  // An unchanged day keeps its time of day; a picked one means that day, UTC; no day → null.
  const publishedAt = !day ? null : kept && kept.slice(0, 10) === day ? kept : `${day}T00:00:00.000Z`;
  return {
    title: text(form, "title"),
    slug: text(form, "slug"),
    content: text(form, "content") ?? "",
    author: text(form, "author"),
    status: text(form, "status"),
    published_at: publishedAt,
  };
}

function draftOf(form: FormData): EditorDraft {
  return {
    title: text(form, "title") ?? "",
    slug: text(form, "slug") ?? "",
    content: text(form, "content") ?? "",
    author: text(form, "author") ?? "",
    status: text(form, "status") ?? "draft",
    publishedDate: text(form, "published_date") ?? "",
  };
}

/**
 * A refused save comes back with the form's fields (`draft`): a browser without JavaScript posted
 * the form itself and gets the editor again, as filled in, with the server's message.
 */
export async function postEditorAction(args: Route.ActionArgs) {
  const posted = await args.request
    .clone()
    .formData()
    .catch(() => null);
  const answer = await savePost(args);
  if (posted && typeof answer === "object" && answer !== null && "data" in answer && "init" in answer) {
    const refusal = answer.data as FormRefusal | { ok: true };
    if (!refusal.ok) {
      const withDraft: FormRefusal & { draft: EditorDraft } = { ...refusal, draft: draftOf(posted) };
      return data(withDraft, answer.init ?? undefined);
    }
  }
  return answer;
}

function savePost(args: Route.ActionArgs) {
  const { services } = args.context;
  return staffIntentAction(args, "editor", {
    create: staffIntent({
      schema: createPostInput,
      fromForm: postFields,
      run: (input, staff) => createPostAsStaff(services, staff, input),
      done: "Post created",
      toastTitle: "Success",
      redirectTo: "/admin/blog",
    }),
    update: staffIntent({
      schema: updatePostInput,
      fromForm: (form) => ({ id: text(form, "id"), ...postFields(form) }),
      run: (input, staff) => updatePostAsStaff(services, staff, input),
      done: "Post updated",
      toastTitle: "Success",
      redirectTo: "/admin/blog",
    }),
  });
}
