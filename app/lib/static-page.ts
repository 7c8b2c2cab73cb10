// Static pages (decision 012): rendered on the server like every page, but never hydrated. The
// root layout sends them without React's scripts; their few interactions come from the
// enhancement script (app/enhance/).
import { toast } from "sonner";
import { handOverToasts, type HandedOverToast } from "./toast-handover.ts";

export interface PageHandle {
  /** false: ship no React to the browser for this page. */
  hydrate?: boolean;
}

/** A static page route's `handle`. */
export const handle: PageHandle = { hydrate: false };

/** True when the matched routes ask not to be hydrated. */
export function isStaticPage(matches: ReadonlyArray<{ handle?: unknown }>): boolean {
  return matches.some((match) => (match.handle as PageHandle | undefined)?.hydrate === false);
}

/**
 * No data: a static page's route has this loader only so that the server renders the page
 * itself (a route with a `clientLoader` and no `loader` is rendered as its HydrateFallback).
 */
export function loader(): null {
  return null;
}

/**
 * A client-side navigation from a hydrated page to a static one (a `<Link>` or `navigate()` in
 * the purchase flow, blog or admin) loads the static page as a document instead, so it is
 * always the server's HTML with the enhancement script, never a React render without its
 * behaviour. The toasts on screen go along (app/lib/toast-handover.ts). Never resolves: the
 * document is being replaced.
 */
export function clientLoader({ request }: { request: Request }): Promise<never> {
  handOverToasts(visibleToasts());
  window.location.assign(request.url);
  return new Promise<never>(() => {});
}

/** sonner's toasts on screen with plain-text title and description, oldest first. */
function visibleToasts(): HandedOverToast[] {
  const handed: HandedOverToast[] = [];
  for (const shown of toast.getToasts()) {
    if ("dismiss" in shown || typeof shown.title !== "string") continue;
    const type = shown.type === "success" || shown.type === "error" ? shown.type : "default";
    const description = typeof shown.description === "string" ? shown.description : undefined;
    handed.push({ type, title: shown.title, description });
  }
  return handed.reverse();
}
