// Browser-side calls of the admin area: better-auth's two-factor endpoints and the spec's
// blog-admin/list read (§7). Changes go through the pages' route actions (issue 27).
// Both ride on the session cookie (HttpOnly, SameSite=Lax) that better-auth sets.

// Type-only: erased from the browser bundle.
export type { AdminPost } from "#server/domain/blog/admin.ts";

export type AuthResult = { ok: true; data: Record<string, unknown> } | { ok: false; message?: string };

/** POST to better-auth; the provider's message comes back on failure. */
export async function authCall(path: string, body: Record<string, unknown>): Promise<AuthResult> {
  try {
    const response = await fetch(`/api/auth/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    const payload = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (response.ok) return { ok: true, data: payload ?? {} };
    return { ok: false, message: typeof payload?.message === "string" ? payload.message : undefined };
  } catch {
    return { ok: false };
  }
}

/** A blog-admin call; failures are silent (spec §8), so this answers null instead of throwing. */
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
