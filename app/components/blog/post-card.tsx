import { Link } from "react-router";
import { Card, CardContent, CardHeader } from "#app/components/ui/card.tsx";
import { Skeleton } from "#app/components/ui/skeleton.tsx";
import { formatLongDate } from "#core/format.ts";

export interface PostSummary {
  slug: string;
  title: string;
  excerpt: string;
  publishedAt: string;
}

export function PostCard({ post }: { post: PostSummary }) {
  return (
    <Card className="relative flex flex-col transition-shadow focus-within:ring-2 focus-within:ring-ring hover:shadow-md">
      <CardHeader>
        <time dateTime={post.publishedAt} className="text-sm text-muted-foreground">
          {formatLongDate(post.publishedAt)}
        </time>
        {/* The list's h1 is the page hero's: a card's title is the next level down. */}
        <h2 className="text-xl font-semibold leading-tight">
          <Link to={`/blog/${post.slug}`} className="after:absolute after:inset-0 focus:outline-none">
            {post.title}
          </Link>
        </h2>
      </CardHeader>
      <CardContent className="text-muted-foreground">
        <p>{post.excerpt}</p>
      </CardContent>
    </Card>
  );
}

export const LIST_SKELETON_CARDS = 6;

/** docs/product.md §8.2: six placeholder cards while the list loads. */
export function PostListSkeleton() {
  return (
    <div
      className="grid gap-6 md:grid-cols-2"
      data-testid="blog-skeleton"
      aria-busy="true"
      aria-label="Loading posts"
    >
      {Array.from({ length: LIST_SKELETON_CARDS }, (_, index) => (
        <Card key={index} data-testid="blog-skeleton-card">
          <CardHeader>
            <Skeleton className="h-4 w-32" />
            <Skeleton className="h-6 w-3/4" />
          </CardHeader>
          <CardContent className="space-y-2">
            <Skeleton className="h-4 w-full" />
            <Skeleton className="h-4 w-full" />
            <Skeleton className="h-4 w-2/3" />
          </CardContent>
        </Card>
      ))}
    </div>
  );
}

export function PostPageSkeleton() {
  return (
    <div className="space-y-4" data-testid="post-skeleton" aria-busy="true" aria-label="Loading post">
      <Skeleton className="h-4 w-28" />
      <Skeleton className="h-10 w-3/4" />
      <Skeleton className="h-4 w-48" />
      {Array.from({ length: 8 }, (_, index) => (
        <Skeleton key={index} className="h-4 w-full" />
      ))}
    </div>
  );
}
