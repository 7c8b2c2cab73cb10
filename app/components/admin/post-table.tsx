import { ExternalLink, Eye, EyeOff, Pencil, RotateCcw, Trash2 } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";
import { Link, useFetcher } from "react-router";
import { Badge } from "#app/components/ui/badge.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { ResponsiveTable, type Column } from "#app/components/ui/responsive-table.tsx";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { Skeleton } from "#app/components/ui/skeleton.tsx";
import { formatShortDate } from "#core/format.ts";
// Type-only: erased from the browser bundle.
import type { AdminPost } from "#server/domain/blog/admin.ts";
import type { IntentResult } from "#server/http/staff-form.ts";

/** The four tabs of docs/product.md §9.3, and Scheduled: published posts dated in the future (not public yet). */
export const POST_TABS = ["all", "draft", "published", "scheduled", "deleted"] as const;
export type PostTab = (typeof POST_TABS)[number];

export function postsInTab(posts: AdminPost[], tab: PostTab): AdminPost[] {
  switch (tab) {
    case "all":
      return posts;
    case "deleted":
      return posts.filter((post) => post.deleted_at);
    case "scheduled":
      return posts.filter((post) => !post.deleted_at && post.scheduled);
    default:
      return posts.filter((post) => !post.deleted_at && post.status === tab);
  }
}

/** Deleted wins over the status (docs/product.md §9.3): red; scheduled blue; published green; draft yellow. */
export function StatusBadge({ post }: { post: AdminPost }) {
  if (post.deleted_at) return <Badge variant="danger">Deleted</Badge>;
  if (post.scheduled) return <Badge variant="info">Scheduled</Badge>;
  if (post.status === "published") return <Badge variant="success">Published</Badge>;
  return <Badge variant="warning">Draft</Badge>;
}

/** The public page of a post readers can see now. */
export function viewPostHref(post: AdminPost): string | null {
  const live = post.status === "published" && !post.deleted_at && !post.scheduled;
  return live ? `/blog/${post.slug}` : null;
}

const SKELETON_ROWS = 5;
const HEADERS = ["Title", "Status", "Published", "Updated", "Actions"];

interface PostActions {
  /** Called after a change worked (its toast comes from the action's flash); failures are silent. */
  onChanged(): void;
}

/** A one-button form posting `intent` for the post to the list page's action. */
function PostActionForm({
  intent,
  fields,
  disabled,
  onChanged,
  children,
}: PostActions & {
  intent: string;
  fields: Record<string, string>;
  disabled?: boolean;
  children: ReactNode;
}) {
  const fetcher = useFetcher<IntentResult>();
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  const handled = useRef<unknown>(undefined);
  useEffect(() => {
    if (!answer?.ok || handled.current === answer) return;
    handled.current = answer;
    onChanged();
  }, [answer, onChanged]);
  return (
    <fetcher.Form method="post" action="/admin/blog">
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" variant="ghost" size="sm" disabled={disabled || fetcher.state !== "idle"}>
        {children}
      </Button>
    </fetcher.Form>
  );
}

function Actions({ post, onChanged }: PostActions & { post: AdminPost }) {
  const view = viewPostHref(post);
  return (
    <div className="flex flex-wrap gap-1 md:justify-end">
      <Button asChild variant="ghost" size="sm">
        <Link to={`/admin/blog/edit/${post.id}`}>
          <Pencil aria-hidden="true" /> Edit
        </Link>
      </Button>
      {view ? (
        <Button asChild variant="ghost" size="sm">
          <a href={view}>
            <ExternalLink aria-hidden="true" /> View post
          </a>
        </Button>
      ) : null}
      <PostActionForm
        intent="publish"
        fields={{ id: post.id, status: post.status === "published" ? "draft" : "published" }}
        disabled={Boolean(post.deleted_at)}
        onChanged={onChanged}
      >
        {post.status === "published" ? (
          <>
            <EyeOff aria-hidden="true" /> Unpublish
          </>
        ) : (
          <>
            <Eye aria-hidden="true" /> Publish
          </>
        )}
      </PostActionForm>
      <PostActionForm
        intent="delete"
        fields={{ id: post.id, restore: post.deleted_at ? "true" : "false" }}
        onChanged={onChanged}
      >
        {post.deleted_at ? (
          <>
            <RotateCcw aria-hidden="true" /> Restore
          </>
        ) : (
          <>
            <Trash2 aria-hidden="true" /> Delete
          </>
        )}
      </PostActionForm>
    </div>
  );
}

export function PostTable({
  posts,
  ...actions
}: PostActions & {
  /** null while the list is loading. */
  posts: AdminPost[] | null;
}) {
  if (posts === null || posts.length === 0)
    return (
      <ScrollRegion label="Posts" className="rounded-lg border">
        <table className="w-full text-left text-sm">
          <thead className="bg-muted/50 text-muted-foreground">
            <tr>
              {HEADERS.map((header) => (
                <th key={header} scope="col" className="px-4 py-3 font-medium">
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {posts === null ? (
              Array.from({ length: SKELETON_ROWS }, (_, index) => (
                <tr key={index} className="border-t" data-testid="post-skeleton">
                  {HEADERS.map((header) => (
                    <td key={header} className="px-4 py-3">
                      <Skeleton className="h-5 w-full" />
                    </td>
                  ))}
                </tr>
              ))
            ) : (
              <tr className="border-t">
                <td colSpan={HEADERS.length} className="px-4 py-10 text-center text-muted-foreground">
                  No posts found
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollRegion>
    );
  const columns: Column<AdminPost>[] = [
    {
      header: "Title",
      cell: (post) => (
        <>
          <div className="flex flex-wrap items-center gap-2 font-medium">
            {post.title}
            {post.sample ? <Badge variant="secondary">Sample</Badge> : null}
          </div>
          <div className="text-xs text-muted-foreground [overflow-wrap:anywhere]">{post.slug}</div>
        </>
      ),
    },
    { header: "Status", cell: (post) => <StatusBadge post={post} /> },
    {
      header: "Published",
      cell: (post) => formatShortDate(post.published_at),
      className: "whitespace-nowrap",
    },
    { header: "Updated", cell: (post) => formatShortDate(post.updated_at), className: "whitespace-nowrap" },
    { header: "Actions", cell: (post) => <Actions post={post} {...actions} /> },
  ];
  return <ResponsiveTable label="Posts" rows={posts} rowKey={(post) => post.id} columns={columns} />;
}
