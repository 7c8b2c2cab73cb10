// The admin area's one browser-side call: the blog-admin/list read (docs/product.md §10.1). Changes go
// through the pages' route actions (issue 27). It rides on the session cookie (HttpOnly,
// SameSite=Lax) that better-auth sets.

// Type-only: erased from the browser bundle.
export type { AdminPost } from "#server/domain/blog/admin.ts";

/** A blog-admin call; failures are silent (docs/product.md §9.3), so this answers null instead of throwing. */
export async function blogAdminCall<T>(name: "list", body: Record<string, unknown> = {}): Promise<T | null> {
  try {
    const response = await fetch(`/api/blog-admin/${name}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    if (!response.ok) return null;
    return (await response.json()) as T;
  } catch {
    return null;
  }
}
