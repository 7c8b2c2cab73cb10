import { ArrowLeft, ArrowRight, Clock } from "lucide-react";
import { data, Link, useNavigation } from "react-router";
import { rssDiscoveryLink } from "#app/components/blog/feed-link.ts";
import { MarkdownContent } from "#app/components/blog/markdown-content.tsx";
import { PostPageSkeleton } from "#app/components/blog/post-card.tsx";
import { formatLongDate } from "#core/format.ts";
import { metaDescription, readingTimeMinutes } from "#core/markdown.ts";
import { pageMeta, rootPublicConfig } from "#app/lib/meta.ts";
import { postCard } from "#core/share-card.ts";
import { findAdjacentPosts, findVisiblePostBySlug } from "#server/domain/blog/public.ts";
import { BlogErrorBoundary } from "#app/components/blog/blog-error-boundary.tsx";
import type { PageHandle } from "#core/static-page.ts";
import type { Route } from "./+types/blog-post";

export async function loader({ params, context }: Route.LoaderArgs) {
  const { db } = context.services;
  const post = await findVisiblePostBySlug(db, params.slug);
  if (!post) throw data(null, { status: 404 });
  const { previous, next } = await findAdjacentPosts(db, post);
  return {
    post: {
      title: post.title,
      slug: post.slug,
      author: post.author,
      content: post.content,
      publishedAt: post.publishedAt.toISOString(),
      updatedAt: post.updatedAt.toISOString(),
      description: metaDescription(post.content),
      readingMinutes: readingTimeMinutes(post.content),
    },
    previous: previous && { title: previous.title, slug: previous.slug },
    next: next && { title: next.title, slug: next.slug },
  };
}

// A first visit gets the server's HTML and the enhancement script, no React.
export const handle: PageHandle = { hydrate: false, rendersAfterNavigation: true };

export const ErrorBoundary = BlogErrorBoundary;

export const meta: Route.MetaFunction = ({ loaderData, matches }) => {
  const brand = rootPublicConfig(matches)?.brandName ?? "NaijaLink";
  const publicUrl = rootPublicConfig(matches)?.publicUrl ?? "";
  if (!loaderData) return [{ title: `Page not found | ${brand}` }, { name: "robots", content: "noindex" }];
  const { post } = loaderData;
  const path = `/blog/${post.slug}`;
  return [
    ...pageMeta(
      {
        title: post.title,
        description: post.description,
        path,
        type: "article",
        card: { card: postCard(brand, post), slug: post.slug },
      },
      matches,
    ),
    { property: "article:published_time", content: post.publishedAt },
    { property: "article:modified_time", content: post.updatedAt },
    { property: "article:author", content: post.author },
    { name: "twitter:title", content: `${post.title} | ${brand}` },
    { name: "twitter:description", content: post.description },
    rssDiscoveryLink(brand),
    {
      "script:ld+json": {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        headline: post.title,
        description: post.description,
        datePublished: post.publishedAt,
        dateModified: post.updatedAt > post.publishedAt ? post.updatedAt : post.publishedAt,
        author: { "@type": "Person", name: post.author },
        publisher: { "@type": "Organization", name: brand },
        mainEntityOfPage: { "@type": "WebPage", "@id": `${publicUrl}${path}` },
        url: `${publicUrl}${path}`,
      },
    },
  ];
};

export default function BlogPost({ loaderData }: Route.ComponentProps) {
  const { post, previous, next } = loaderData;
  const navigation = useNavigation();
  // Moving to another post (Previous/Next): show the skeleton instead of the old post.
  const loadingAnotherPost =
    navigation.state === "loading" &&
    navigation.location.pathname.startsWith("/blog/") &&
    navigation.location.pathname !== `/blog/${post.slug}`;
  return (
    <article className="mx-auto max-w-3xl px-4 py-12">
      {loadingAnotherPost ? (
        <PostPageSkeleton />
      ) : (
        <>
          <Link
            to="/blog"
            className="inline-flex items-center gap-2 text-sm font-medium text-primary hover:underline"
          >
            <ArrowLeft className="size-4" aria-hidden="true" />
            Back to Blog
          </Link>
          <header className="mt-6 border-b pb-6">
            <h1 className="text-3xl font-bold tracking-tight md:text-4xl">{post.title}</h1>
            <p className="mt-4 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-muted-foreground">
              <span>By {post.author}</span>
              <span aria-hidden="true">·</span>
              <time dateTime={post.publishedAt}>{formatLongDate(post.publishedAt)}</time>
              <span aria-hidden="true">·</span>
              <span className="inline-flex items-center gap-1">
                <Clock className="size-3.5" aria-hidden="true" />
                {post.readingMinutes} min read
              </span>
            </p>
          </header>
          <MarkdownContent content={post.content} className="mt-8" />
          {previous || next ? (
            <nav aria-label="More posts" className="mt-12 grid gap-4 border-t pt-8 sm:grid-cols-2">
              {previous ? (
                <Link
                  to={`/blog/${previous.slug}`}
                  rel="prev"
                  className="group rounded-lg border p-4 transition-colors hover:bg-accent"
                >
                  <span className="flex items-center gap-1 text-sm text-muted-foreground">
                    <ArrowLeft className="size-4" aria-hidden="true" />
                    Previous
                  </span>
                  <span className="mt-1 block font-semibold group-hover:text-primary">{previous.title}</span>
                </Link>
              ) : (
                <span />
              )}
              {next ? (
                <Link
                  to={`/blog/${next.slug}`}
                  rel="next"
                  className="group rounded-lg border p-4 text-right transition-colors hover:bg-accent"
                >
                  <span className="flex items-center justify-end gap-1 text-sm text-muted-foreground">
                    Next
                    <ArrowRight className="size-4" aria-hidden="true" />
                  </span>
                  <span className="mt-1 block font-semibold group-hover:text-primary">{next.title}</span>
                </Link>
              ) : null}
            </nav>
          ) : null}
        </>
      )}
    </article>
  );
}
