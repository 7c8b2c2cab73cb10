import { Eye, EyeOff, Pencil, RotateCcw, Trash2 } from "lucide-react";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { Link } from "react-router";
import { Badge } from "#app/components/ui/badge.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Skeleton } from "#app/components/ui/skeleton.tsx";
import { formatShortDate } from "#app/lib/format.ts";
import type { AdminPost } from "./api.ts";

export const POST_TABS = ["all", "draft", "published", "deleted"] as const;
export type PostTab = (typeof POST_TABS)[number];

export function postsInTab(posts: AdminPost[], tab: PostTab): AdminPost[] {
  switch (tab) {
    case "all":
      return posts;
    case "deleted":
      return posts.filter((post) => post.deleted_at);
    default:
      return posts.filter((post) => !post.deleted_at && post.status === tab);
  }
}

/** Deleted wins over the status (spec §4): red; published green; draft yellow. */
export function StatusBadge({ post }: { post: AdminPost }) {
  if (post.deleted_at) return <Badge variant="danger">Deleted</Badge>;
  if (post.status === "published") return <Badge variant="success">Published</Badge>;
  return <Badge variant="warning">Draft</Badge>;
}

const SKELETON_ROWS = 5;

export function PostTable({
  posts,
  onToggleStatus,
  onToggleDeleted,
}: {
  /** null while the list is loading. */
  posts: AdminPost[] | null;
  onToggleStatus(post: AdminPost): void;
  onToggleDeleted(post: AdminPost): void;
}) {
  return (
    <ScrollRegion label="Posts" className="rounded-lg border">
      <table className="w-full text-left text-sm">
        <thead className="bg-muted/50 text-muted-foreground">
          <tr>
            <th scope="col" className="px-4 py-3 font-medium">
              Title
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Status
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Published
            </th>
            <th scope="col" className="px-4 py-3 font-medium">
              Updated
            </th>
            <th scope="col" className="px-4 py-3 text-right font-medium">
              Actions
            </th>
          </tr>
        </thead>
        <tbody>
          {posts === null ? (
            Array.from({ length: SKELETON_ROWS }, (_, index) => (
              <tr key={index} className="border-t" data-testid="post-skeleton">
                {Array.from({ length: 5 }, (_, cell) => (
                  <td key={cell} className="px-4 py-3">
                    <Skeleton className="h-5 w-full" />
                  </td>
                ))}
              </tr>
            ))
          ) : posts.length === 0 ? (
            <tr className="border-t">
              <td colSpan={5} className="px-4 py-10 text-center text-muted-foreground">
                No posts found
              </td>
            </tr>
          ) : (
            posts.map((post) => (
              <tr key={post.id} className="border-t" data-post-id={post.id}>
                <td className="px-4 py-3">
                  <div className="flex flex-wrap items-center gap-2 font-medium">
                    {post.title}
                    {post.sample ? <Badge variant="secondary">Sample</Badge> : null}
                  </div>
                  <div className="text-xs text-muted-foreground">{post.slug}</div>
                </td>
                <td className="px-4 py-3">
                  <StatusBadge post={post} />
                </td>
                <td className="px-4 py-3 whitespace-nowrap">{formatShortDate(post.published_at)}</td>
                <td className="px-4 py-3 whitespace-nowrap">{formatShortDate(post.updated_at)}</td>
                <td className="px-4 py-3">
                  <div className="flex justify-end gap-1">
                    <Button asChild variant="ghost" size="sm">
                      <Link to={`/admin/blog/edit/${post.id}`}>
                        <Pencil aria-hidden="true" /> Edit
                      </Link>
                    </Button>
                    <Button
                      variant="ghost"
                      size="sm"
                      disabled={Boolean(post.deleted_at)}
                      onClick={() => onToggleStatus(post)}
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
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => onToggleDeleted(post)}>
                      {post.deleted_at ? (
                        <>
                          <RotateCcw aria-hidden="true" /> Restore
                        </>
                      ) : (
                        <>
                          <Trash2 aria-hidden="true" /> Delete
                        </>
                      )}
                    </Button>
                  </div>
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
