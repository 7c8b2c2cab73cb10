import { LogOut, Plus } from "lucide-react";
import {
  Form,
  Link,
  redirect,
  redirectDocument,
  useSearchParams,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import { ActionNotice } from "#app/components/admin/action-notice.tsx";
import type { AdminPost } from "#server/domain/blog/admin.ts";
import { POST_TABS, PostTable, postsInTab, type PostTab } from "#app/components/admin/post-table.tsx";
import { TwoFactorSettings, twoFactorAnswerOf } from "#app/components/admin/two-factor-settings.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { flashCookie } from "#server/http/flash.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { cn } from "#app/lib/utils.ts";
import { staffAccess } from "#server/domain/auth/staff.ts";
import { listPosts } from "#server/domain/blog/admin.ts";
import { ACCESS_DENIED } from "#server/http/staff-pages.ts";
import { blogListAction } from "./admin-blog-actions.server.ts";
import type { Route } from "./+types/admin-blog";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta(
    { title: "Blog Admin", description: "Manage NaijaLink blog posts.", path: "/admin/blog" },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

/**
 * Signed out → the login page; signed in but not staff → sent home, told so there (docs/product.md §9.2);
 * staff who must enrol two-factor first (`STAFF_REQUIRE_TOTP`) → only the enrolment.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const access = await staffAccess(request, context.services);
  if (access.kind === "anonymous") throw redirect("/admin/login");
  if (access.kind === "needs-two-factor")
    return { twoFactorEnabled: false, twoFactorRequired: true, posts: [] as AdminPost[] };
  // A document load of the static home page, where the server renders the message (decision 123).
  if (access.kind !== "staff")
    throw redirectDocument("/", { headers: { "Set-Cookie": flashCookie(context.services, ACCESS_DENIED) } });
  const twoFactorRequired = context.services.config.STAFF_REQUIRE_TOTP;
  const locked = twoFactorRequired && !access.user.twoFactorEnabled;
  return {
    twoFactorEnabled: access.user.twoFactorEnabled,
    twoFactorRequired,
    // The list is in the page's HTML (it works without JavaScript); a change's action reloads it.
    posts: locked ? [] : await listPosts(context.services.db),
  };
}

/**
 * A tab is a link (`?tab=draft`), so it works without JavaScript; with it, choosing a tab is a
 * client-side navigation that filters the list already loaded, without reading it again.
 */
export function shouldRevalidate({
  formMethod,
  currentUrl,
  nextUrl,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (formMethod && formMethod.toUpperCase() !== "GET") return defaultShouldRevalidate;
  const withoutTab = (url: URL) => {
    const query = new URLSearchParams(url.search);
    query.delete("tab");
    return `${url.pathname}?${query}`;
  };
  if (currentUrl.search !== nextUrl.search && withoutTab(currentUrl) === withoutTab(nextUrl)) return false;
  return defaultShouldRevalidate;
}

/** Publish, unpublish, delete, restore (as /api/blog-admin/* does them), sign out, two-factor. */
export const action = blogListAction;

/**
 * One frame whether or not the posts are shown, so the two-factor form keeps its state (the
 * backup codes) when finishing enrolment reloads the data and unlocks the list.
 */
export default function AdminBlog({ loaderData, actionData }: Route.ComponentProps) {
  const { twoFactorEnabled, twoFactorRequired } = loaderData;
  const locked = twoFactorRequired && !twoFactorEnabled;
  return (
    <section className="mx-auto max-w-6xl px-4 py-12">
      <div className="mb-8 flex flex-wrap items-center justify-between gap-4">
        <h1 className="text-3xl font-bold tracking-tight">Blog Admin</h1>
        <div className="flex gap-2">
          {!locked && (
            <Button asChild>
              <Link to="/admin/blog/new">
                <Plus aria-hidden="true" /> New Post
              </Link>
            </Button>
          )}
          <SignOutButton />
        </div>
      </div>
      {locked && (
        <p className="mb-4 max-w-prose">
          Staff accounts must use two-factor authentication. Set it up with an authenticator app to continue
          to the admin area.
        </p>
      )}
      <ActionNotice answer={actionData && "done" in actionData ? actionData : undefined} />
      <div className="mb-6">
        <TwoFactorSettings
          enabled={twoFactorEnabled}
          required={twoFactorRequired}
          pageAnswer={twoFactorAnswerOf(actionData)}
        />
      </div>
      {!locked && <PostList posts={loaderData.posts} />}
    </section>
  );
}

function SignOutButton() {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="sign-out" />
      <Button type="submit" variant="outline">
        <LogOut aria-hidden="true" /> Sign out
      </Button>
    </Form>
  );
}

const TAB_LABELS: Record<PostTab, string> = {
  all: "All",
  draft: "Draft",
  published: "Published",
  scheduled: "Scheduled",
  deleted: "Deleted",
};

/** After a change, React Router revalidates the page's loader, which reads the list again. */
const listReloadsItself = () => undefined;

const tabOf = (value: string | null): PostTab => POST_TABS.find((tab) => tab === value) ?? "all";

function PostList({ posts }: { posts: AdminPost[] }) {
  const [searchParams] = useSearchParams();
  const tab = tabOf(searchParams.get("tab"));

  return (
    <>
      <div
        role="tablist"
        aria-label="Filter posts"
        className="mb-4 inline-flex flex-wrap rounded-md bg-muted p-1"
      >
        {POST_TABS.map((value) => (
          <Link
            key={value}
            to={value === "all" ? "/admin/blog" : `/admin/blog?tab=${value}`}
            role="tab"
            aria-selected={tab === value}
            preventScrollReset
            className={cn(
              "rounded px-3 py-1.5 text-sm font-medium",
              tab === value ? "bg-background shadow" : "text-muted-foreground",
            )}
          >
            {TAB_LABELS[value]}
          </Link>
        ))}
      </div>
      <PostTable posts={postsInTab(posts, tab)} onChanged={listReloadsItself} />
    </>
  );
}
