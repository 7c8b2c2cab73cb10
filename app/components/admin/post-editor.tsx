import { useState } from "react";
import { Link, useFetcher } from "react-router";
import { MarkdownContent } from "#app/components/blog/markdown-content.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Label, LabelledInput, Textarea } from "#app/components/ui/input.tsx";
import { slugify } from "#app/lib/slugify.ts";
// Type-only: erased from the browser bundle.
import type { AdminPost } from "#server/domain/blog/admin.ts";
import type { FormRefusal } from "#server/http/staff-form.ts";
import { viewPostHref } from "./post-table.tsx";

export const TEAM_AUTHOR = "NaijaLink Team";

/** What the editor's form held when a save was refused: without JavaScript the page is drawn again from it. */
export interface EditorDraft {
  title: string;
  slug: string;
  content: string;
  author: string;
  status: string;
  publishedDate: string;
}

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring";

/** "YYYY-MM-DD" of an ISO date (UTC, so the server and the browser render the same). */
function dateInputValue(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : "";
}

/**
 * The editor of a new or an existing post. A refused save shows the server's message (a duplicate
 * slug, an empty title): a deliberate departure from the other blog-admin calls' silent failures (decision 108).
 */
export function PostEditor({
  post,
  pageAnswer,
}: {
  post: AdminPost | null;
  /** The page's own answer to a save posted without JavaScript: the refusal and the form as sent. */
  pageAnswer?: FormRefusal & { draft: EditorDraft };
}) {
  const fetcher = useFetcher<FormRefusal>();
  const creating = post === null;
  const draft = pageAnswer?.draft;
  const [title, setTitle] = useState(draft?.title ?? post?.title ?? "");
  const [slug, setSlug] = useState(draft?.slug ?? post?.slug ?? "");
  const [slugEdited, setSlugEdited] = useState(draft !== undefined);
  const [status, setStatus] = useState<AdminPost["status"]>(
    draft?.status === "published" ? "published" : draft ? "draft" : (post?.status ?? "draft"),
  );
  const [author, setAuthor] = useState(draft?.author ?? post?.author ?? TEAM_AUTHOR);
  const [publishedDate, setPublishedDate] = useState(
    draft?.publishedDate ?? dateInputValue(post?.published_at),
  );
  const [content, setContent] = useState(draft?.content ?? post?.content ?? "");
  const saving = fetcher.state !== "idle";
  // A save that worked redirects to the list; what comes back here is a refusal.
  const refusal =
    !saving && fetcher.data && !fetcher.data.ok ? fetcher.data.message : (pageAnswer?.message ?? null);
  const view = post && viewPostHref(post);

  function changeTitle(value: string) {
    setTitle(value);
    // Only a new post follows its title, and only until the slug is edited by hand.
    if (creating && !slugEdited) setSlug(slugify(value));
  }

  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <div className="mb-8 flex flex-wrap items-center justify-between gap-4">
        <h1 className="text-3xl font-bold tracking-tight">{creating ? "New Post" : "Edit Post"}</h1>
        <div className="flex flex-wrap gap-2">
          {view ? (
            <Button asChild variant="outline">
              <a href={view}>View post</a>
            </Button>
          ) : null}
          <Button asChild variant="outline">
            <Link to="/admin/blog">Back to posts</Link>
          </Button>
        </div>
      </div>
      <fetcher.Form method="post" className="space-y-6">
        <input type="hidden" name="intent" value={creating ? "create" : "update"} />
        {post ? <input type="hidden" name="id" value={post.id} /> : null}
        {post?.published_at ? (
          <input type="hidden" name="published_at_before" value={post.published_at} />
        ) : null}
        <div className="grid gap-4 md:grid-cols-2">
          <LabelledInput
            id="post-title"
            label="Title"
            name="title"
            value={title}
            onChange={(event) => changeTitle(event.target.value)}
          />
          <LabelledInput
            id="post-slug"
            label="URL slug"
            name="slug"
            value={slug}
            onChange={(event) => {
              setSlugEdited(true);
              setSlug(event.target.value);
            }}
          />
          <div className="space-y-2">
            <Label htmlFor="post-status">Status</Label>
            <select
              id="post-status"
              name="status"
              className={selectClass}
              value={status}
              onChange={(event) => setStatus(event.target.value as AdminPost["status"])}
            >
              <option value="draft">Draft</option>
              <option value="published">Published</option>
            </select>
          </div>
          <LabelledInput
            id="post-author"
            label="Author"
            name="author"
            value={author}
            onChange={(event) => setAuthor(event.target.value)}
          />
          <LabelledInput
            id="post-published-at"
            label="Published date"
            name="published_date"
            type="date"
            value={publishedDate}
            onChange={(event) => setPublishedDate(event.target.value)}
          />
        </div>
        <div className="grid gap-6 lg:grid-cols-2">
          <div className="space-y-2">
            <Label htmlFor="post-content">Content (markdown)</Label>
            <Textarea
              id="post-content"
              name="content"
              className="min-h-[480px] font-mono"
              value={content}
              onChange={(event) => setContent(event.target.value)}
            />
          </div>
          <div className="space-y-2">
            <h2 className="text-sm font-medium leading-none">Preview</h2>
            <div
              data-testid="post-preview"
              role="region"
              aria-label="Preview"
              // Scrolls when the post is long: reachable by keyboard too.
              tabIndex={0}
              className="min-h-[480px] overflow-auto rounded-md border bg-background p-4"
            >
              <MarkdownContent content={content} />
            </div>
          </div>
        </div>
        {refusal ? (
          <p role="alert" className="text-sm text-destructive">
            {refusal}
          </p>
        ) : null}
        <Button type="submit" disabled={saving}>
          {status === "published" ? "Save and Publish" : "Save Draft"}
        </Button>
      </fetcher.Form>
    </section>
  );
}
