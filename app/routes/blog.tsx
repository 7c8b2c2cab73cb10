import { Suspense } from "react";
import { Await, data, isRouteErrorResponse, useAsyncError, useNavigation } from "react-router";
import { NotFound } from "#app/components/not-found.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { EMPTY_BLOG_MESSAGE, rssDiscoveryLink } from "#app/components/blog/feed-link.ts";
import { BlogPagination, blogPageHref } from "#app/components/blog/pagination.tsx";
import { PostCard, PostListSkeleton, type PostSummary } from "#app/components/blog/post-card.tsx";
import { excerpt } from "#core/markdown.ts";
import { pageMeta, rootPublicConfig } from "#app/lib/meta.ts";
import { usePublicConfig } from "#app/lib/public-config.ts";
import { listVisiblePosts, parsePageParam } from "#server/domain/blog/public.ts";
import { BlogErrorBoundary } from "#app/components/blog/blog-error-boundary.tsx";
import type { PageHandle } from "#core/static-page.ts";
import type { Route } from "./+types/blog";

interface BlogListData {
  posts: PostSummary[];
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const { services } = context;
  const page = parsePageParam(url.searchParams.get("page"));
  if (page === undefined) throw data(null, { status: 404 });
  const list = await loadList(services, page).catch((error: unknown) => {
    // docs/product.md §8.2: a failed list shows the empty message, not an error page.
    services.logger.error({ err: error }, "blog list query failed");
    return undefined;
  });
  if (!list) {
    // Not kept by the page cache: the next visitor gets the posts as soon as the query works.
    return data<BlogListData>(
      { posts: [], page, hasPrevious: false, hasNext: false },
      { headers: { "Cache-Control": "no-store" } },
    );
  }
  if (page > 1 && list.posts.length === 0) throw data(null, { status: 404 });
  return list;
}

async function loadList(
  services: Route.LoaderArgs["context"]["services"],
  page: number,
): Promise<BlogListData> {
  const result = await listVisiblePosts(services.db, page);
  return {
    page,
    hasPrevious: result.hasPrevious,
    hasNext: result.hasNext,
    posts: result.posts.map((post) => ({
      slug: post.slug,
      title: post.title,
      excerpt: excerpt(post.content),
      publishedAt: post.publishedAt.toISOString(),
    })),
  };
}

/**
 * On a client-side navigation the route renders at once with the skeleton and the cards
 * replace it when the server's data arrives (docs/product.md §8.2: a skeleton of 6 cards).
 * The first page load is server-rendered and does not run this.
 */
export function clientLoader({ serverLoader }: Route.ClientLoaderArgs) {
  return { pending: serverLoader() };
}

// A first visit gets the server's HTML and the enhancement script, no React (decision 085).
export const handle: PageHandle = { hydrate: false, rendersAfterNavigation: true };

export const ErrorBoundary = BlogErrorBoundary;

export const headers: Route.HeadersFunction = ({ loaderHeaders, errorHeaders }) =>
  errorHeaders ?? loaderHeaders;

export const meta: Route.MetaFunction = ({ matches, location }) => {
  const page = parsePageParam(new URLSearchParams(location.search).get("page")) ?? 1;
  const brand = rootPublicConfig(matches)?.brandName ?? "NaijaLink";
  return [
    ...pageMeta(
      {
        title: page > 1 ? `Blog - Page ${page}` : "Blog",
        description: `Guides and news from ${brand} on watching Nigerian TV abroad, Nigerian prices and staying connected.`,
        path: blogPageHref(page),
      },
      matches,
    ),
    rssDiscoveryLink(brand),
  ];
};

function PostList({ list }: { list: BlogListData }) {
  if (list.posts.length === 0) {
    return <p className="py-16 text-center text-lg text-muted-foreground">{EMPTY_BLOG_MESSAGE}</p>;
  }
  return (
    <>
      <div className="grid gap-6 md:grid-cols-2">
        {list.posts.map((post) => (
          <PostCard key={post.slug} post={post} />
        ))}
      </div>
      <BlogPagination page={list.page} hasPrevious={list.hasPrevious} hasNext={list.hasNext} />
    </>
  );
}

function ListError() {
  const error = useAsyncError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  return <p className="py-16 text-center text-lg text-muted-foreground">{EMPTY_BLOG_MESSAGE}</p>;
}

export default function Blog({ loaderData }: Route.ComponentProps) {
  const { brandName } = usePublicConfig();
  const navigation = useNavigation();
  // Paging from one list page to the next: the old cards give way to the skeleton at once.
  const pagingAway = navigation.state === "loading" && navigation.location.pathname === "/blog";
  // Server data renders straight away, outside any Suspense boundary: React would otherwise move
  // a large boundary's HTML to the end of the stream, after the skeleton.
  const pending = "pending" in loaderData ? (loaderData.pending as Promise<BlogListData>) : undefined;
  return (
    <>
      <PageHero title={`${brandName} Blog`}>
        <p>Guides and news on watching Nigerian TV abroad, paying Nigerian prices and staying connected.</p>
      </PageHero>
      <section className="mx-auto max-w-5xl px-4 py-12">
        {pagingAway ? (
          <PostListSkeleton />
        ) : pending ? (
          <Suspense fallback={<PostListSkeleton />}>
            <Await resolve={pending} errorElement={<ListError />}>
              {(resolved) => <PostList list={resolved} />}
            </Await>
          </Suspense>
        ) : (
          <PostList list={loaderData as BlogListData} />
        )}
      </section>
    </>
  );
}
