import { useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { toast } from "sonner";
import { MarkdownContent } from "#app/components/blog/markdown-content.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label, Textarea } from "#app/components/ui/input.tsx";
import { slugify } from "#app/lib/slugify.ts";
import { postJson } from "#app/lib/json-call.ts";
import type { AdminPost } from "./api.ts";
import { viewPostHref } from "./post-table.tsx";

export const TEAM_AUTHOR = "NaijaLink Team";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring";

/** "YYYY-MM-DD" of an ISO date (UTC, so the server and the browser render the same). */
function dateInputValue(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : "";
}

/**
 * The editor of a new or an existing post. A refused save shows the server's message (a duplicate
 * slug, an empty title): a deliberate departure from the spec's silent failures (decision 108).
 */
export function PostEditor({ post }: { post: AdminPost | null }) {
  const navigate = useNavigate();
  const creating = post === null;
  const [title, setTitle] = useState(post?.title ?? "");
  const [slug, setSlug] = useState(post?.slug ?? "");
  const [slugEdited, setSlugEdited] = useState(false);
  const [status, setStatus] = useState<AdminPost["status"]>(post?.status ?? "draft");
  const [author, setAuthor] = useState(post?.author ?? TEAM_AUTHOR);
  const [publishedDate, setPublishedDate] = useState(dateInputValue(post?.published_at));
  const [content, setContent] = useState(post?.content ?? "");
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const view = post && viewPostHref(post);

  function changeTitle(value: string) {
    setTitle(value);
    // Only a new post follows its title, and only until the slug is edited by hand.
    if (creating && !slugEdited) setSlug(slugify(value));
  }

  /** An unchanged date keeps its time of day; a picked one means that day, UTC; empty → null. */
  function publishedAtToSend(): string | null {
    if (!publishedDate) return null;
    if (post?.published_at && dateInputValue(post.published_at) === publishedDate) return post.published_at;
    return new Date(`${publishedDate}T00:00:00Z`).toISOString();
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setRefusal(null);
    const fields = { title, slug, content, author, status, published_at: publishedAtToSend() };
    const result = creating
      ? await postJson<{ post: AdminPost }>("/api/blog-admin/create", fields)
      : await postJson<{ post: AdminPost }>("/api/blog-admin/update", { id: post.id, ...fields });
    setSaving(false);
    if (!result.ok) {
      setRefusal(result.message ?? "The post was not saved. Try again.");
      return;
    }
    toast.success("Success", { description: creating ? "Post created" : "Post updated" });
    navigate("/admin/blog");
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
      <form onSubmit={save} className="space-y-6">
        <div className="grid gap-4 md:grid-cols-2">
          <div className="space-y-2">
            <Label htmlFor="post-title">Title</Label>
            <Input id="post-title" value={title} onChange={(event) => changeTitle(event.target.value)} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="post-slug">URL slug</Label>
            <Input
              id="post-slug"
              value={slug}
              onChange={(event) => {
                setSlugEdited(true);
                setSlug(event.target.value);
              }}
            />
          </div>
          <div className="space-y-2">
            <Label htmlFor="post-status">Status</Label>
            <select
              id="post-status"
              className={selectClass}
              value={status}
              onChange={(event) => setStatus(event.target.value as AdminPost["status"])}
            >
              <option value="draft">Draft</option>
              <option value="published">Published</option>
            </select>
          </div>
          <div className="space-y-2">
            <Label htmlFor="post-author">Author</Label>
            <Input id="post-author" value={author} onChange={(event) => setAuthor(event.target.value)} />
          </div>
          <div className="space-y-2">
            <Label htmlFor="post-published-at">Published date</Label>
            <Input
              id="post-published-at"
              type="date"
              value={publishedDate}
              onChange={(event) => setPublishedDate(event.target.value)}
            />
          </div>
        </div>
        <div className="grid gap-6 lg:grid-cols-2">
          <div className="space-y-2">
            <Label htmlFor="post-content">Content (markdown)</Label>
            <Textarea
              id="post-content"
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
      </form>
    </section>
  );
}
